"""Credentials in connection strings and settings are read by their keys; placeholders stay."""

import pytest

from deputy.core.secret_scan import find_secrets


@pytest.mark.parametrize("message, secret, kept", [
    ("Server=db.lan;Database=Sales;User Id=ann;Password=6-jO2.Gph5IfcS.jO#.-Hr;Encrypt=True", "6-jO2.Gph5IfcS.jO#.-Hr",
     "Encrypt=True"),
    ("Driver={ODBC Driver 18};Server=db;Uid=ann;Pwd={RXm5UQ;5QP=kDE!};Encrypt=yes;", "RXm5UQ;5QP=kDE!", "Encrypt=yes"),
    ("jdbc:postgresql://db:5432/orders?user=ann&password=gEtqvwZ_JB~7W&ssl=true", "gEtqvwZ_JB~7W", "ssl=true"),
    ("jdbc:oracle:thin:lea/qrKEfJ7P#IFM@//db.internal:1521/ORCL", "qrKEfJ7P#IFM", "//db.internal:1521/ORCL"),
    # a command's own option for its password, and the user name before it stays
    ("curl -u deploy:Wq8tYzLp0aRvXn3K_2 https://nas.lan:5001/api", "Wq8tYzLp0aRvXn3K_2", "curl -u deploy:"),
    ("mysql -h db.lan -u shop -pKr4mbambuli shop_prod", "Kr4mbambuli", "shop_prod"),
    ("redis-cli -h cache.lan -a Sup3rS3cret ping", "Sup3rS3cret", "ping"),
    ("sqlcmd -S db.lan -U sa -P Tr0ub4dor& -Q \"select 1\"", "Tr0ub4dor&", "-U sa"),
    ("docker login -u ci -p Hunter22x registry.example.com", "Hunter22x", "registry.example.com"),
    ("wget --user=bob --password=Hunter22x https://files.lan/report.pdf", "Hunter22x", "--user=bob"),
    ("<datasource><user>app</user><password>Zx9!mQ2w</password></datasource>", "Zx9!mQ2w", "<user>app</user>"),
])
def test_the_value_of_a_secret_key_is_taken_out_whole_and_the_rest_stays(message: str, secret: str, kept: str) -> None:
    kept_text = find_secrets(message).redacted()
    assert secret not in kept_text and kept in kept_text


@pytest.mark.parametrize("message", [
    "connection string template: postgres://USER:PASSWORD@HOST:5432/DBNAME",
    "set DB_PASS=${DB_PASSWORD} in the compose file",
    "Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword;",
    "Server=db;Database=Lager;Integrated Security=SSPI;",
    "mysql -u root -p shop_prod",  # "-p" alone asks for the password; shop_prod is the database
    "docker login -u ci --password-stdin registry.example.com",
    "curl -u $API_USER:$API_TOKEN https://api.example.com",
])
def test_placeholders_and_strings_without_a_credential_stay(message: str) -> None:
    assert not find_secrets(message).found
