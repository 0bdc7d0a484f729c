"""Credentials in connection strings and settings are read by their keys; placeholders stay."""

import pytest

from deputy.core.secret_scan import find_secrets


@pytest.mark.parametrize("message, secret, kept", [
    ("Server=db.lan;Database=Sales;User Id=ann;Password=6-jO2.Gph5IfcS.jO#.-Hr;Encrypt=True", "6-jO2.Gph5IfcS.jO#.-Hr",
     "Encrypt=True"),
    ("Driver={ODBC Driver 18};Server=db;Uid=ann;Pwd={RXm5UQ;5QP=kDE!};Encrypt=yes;", "RXm5UQ;5QP=kDE!", "Encrypt=yes"),
    ("jdbc:postgresql://db:5432/orders?user=ann&password=gEtqvwZ_JB~7W&ssl=true", "gEtqvwZ_JB~7W", "ssl=true"),
    ("jdbc:oracle:thin:lea/qrKEfJ7P#IFM@//db.internal:1521/ORCL", "qrKEfJ7P#IFM", "//db.internal:1521/ORCL"),
])
def test_the_value_of_a_secret_key_is_taken_out_whole_and_the_rest_stays(message: str, secret: str, kept: str) -> None:
    kept_text = find_secrets(message).redacted()
    assert secret not in kept_text and kept in kept_text


@pytest.mark.parametrize("message", [
    "connection string template: postgres://USER:PASSWORD@HOST:5432/DBNAME",
    "set DB_PASS=${DB_PASSWORD} in the compose file",
    "Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword;",
    "Server=db;Database=Lager;Integrated Security=SSPI;",
])
def test_placeholders_and_strings_without_a_credential_stay(message: str) -> None:
    assert not find_secrets(message).found
