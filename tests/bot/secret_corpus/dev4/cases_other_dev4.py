"""Five to eight cases of each remaining kind, in the phrasings people use in chat."""

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from values_dev4 import case
import values_dev4 as v

ALNUM = v.string.ascii_letters + v.string.digits


def others():
    out = []

    def add(kind, messages, secret, keep, lang, source, checks=()):
        out.append(case(kind, messages, secret, keep, lang, source, checks))

    # card
    for prefix, length, grp, text, keep, lang in [
        ("4", 16, [4, 4, 4, 4], "can you book the table, card is {c} exp 09/28", ["book the table"], "en"),
        ("52", 16, [4, 4, 4, 4], "Kreditkarte: {c}, gültig bis 11/27 – bitte die Bahntickets kaufen", ["Bahntickets"], "de"),
        ("37", 15, [4, 6, 5], "paga con la Amex {c}, caduca 03/29", ["paga con la Amex"], "es"),
        ("4", 16, [16], "numéro de carte {c} pour la réservation", ["pour la réservation"], "fr"),
        ("51", 16, [4, 4, 4, 4], "carta {c} scad. 05/27, prenota tu il treno", ["prenota tu il treno"], "it"),
        ("4", 16, [4, 4, 4, 4], "cartão {c}, validade 08/28 — compra os bilhetes", ["compra os bilhetes"], "pt"),
        ("55", 16, [4, 4, 4, 4], "mijn creditcard {c} vervalt 12/26", ["vervalt"], "nl"),
    ]:
        c = v.luhn_number(prefix, length)
        f = v.group(c, grp)
        add("card", text.format(c=f), [f], keep, lang, "ISO/IEC 7812 Luhn, Visa/Mastercard/Amex IIN ranges",
            [("luhn", c)])
    # cvc_pin
    for text, keep, lang, n in [
        ("CVC on the back is {x}", ["on the back"], "en", 3), ("Prüfziffer {x} steht hinten drauf", ["hinten drauf"], "de", 3),
        ("el PIN de la tarjeta: {x}", ["PIN de la tarjeta"], "es", 4), ("cryptogramme : {x}", ["cryptogramme"], "fr", 3),
        ("il codice CVV è {x}", ["codice CVV"], "it", 3), ("código de segurança {x}", ["código de segurança"], "pt", 3),
        ("pincode van mijn pas: {x}", ["pincode van mijn pas"], "nl", 4)]:
        x = v.digits(n)
        add("cvc_pin", text.format(x=x), [x], keep, lang, "card verification value / PIN phrasing")
    # password_phrase
    for text, keep, lang in [
        ("my gmail password is {p} if you need to get in", ["if you need to get in"], "en"),
        ("Das Passwort fürs Büro-WLAN: {p}", ["Büro-WLAN"], "de"),
        ("contraseña del router {p}", ["contraseña del router"], "es"),
        ("le mdp du compte Free c'est {p}", ["compte Free"], "fr"),
        ("password della posta: {p}", ["password della posta"], "it"),
        ("senha do wi-fi lá de casa: {p}", ["senha do wi-fi"], "pt"),
        ("ww van de NAS is {p}", ["van de NAS"], "nl"),
    ]:
        p = v.password(v.RNG.randint(10, 16))
        add("password_phrase", text.format(p=p), [p], keep, lang, "casual password phrasing")
    # login (username neutral, password secret)
    for text, keep, lang in [
        ("login for the school portal: user j.okafor pw {p}", ["school portal"], "en"),
        ("Zugang Elster: Benutzer m.krause, Passwort {p}", ["Zugang Elster"], "de"),
        ("usuario: lferrer@example.es / clave: {p}", ["usuario:"], "es"),
        ("identifiant : c.morel\nmot de passe : {p}", ["identifiant :"], "fr"),
        ("utente: g.bianchi — pass: {p}", ["utente:"], "it"),
        ("email: ana.silva@example.pt senha: {p}", ["email:"], "pt"),
        ("gebruikersnaam jdevries, wachtwoord {p}", ["gebruikersnaam"], "nl"),
    ]:
        p = v.password(12)
        add("login", text.format(p=p), [p], keep, lang, "username + password phrasing")
    # vendor_key (random values of the documented shapes, gitleaks rules)
    keys = [
        ("ghp_" + v.token(36), "here's my GitHub token {k}, set up the action", ["set up the action"], "en",
         "gitleaks github-pat"),
        ("sk_live_" + v.token(24), "Stripe Secret Key: {k}", ["Stripe"], "en", "Stripe docs sk_live_"),
        ("xoxb-" + v.digits(12) + "-" + v.digits(13) + "-" + v.token(24), "Slack-Bot-Token {k} – bitte einbauen",
         ["bitte einbauen"], "de", "gitleaks slack-bot-token"),
        ("glpat-" + v.token(20, ALNUM + "_-"), "token de GitLab: {k}", ["token de GitLab"], "es", "gitleaks gitlab-pat"),
        ("hf_" + v.token(34, v.string.ascii_letters), "ma clé Hugging Face {k}", ["Hugging Face"], "fr",
         "gitleaks huggingface-access-token"),
        ("AIza" + v.token(35, ALNUM + "_-"), "chiave API di Google Maps: {k}", ["Google Maps"], "it", "gitleaks gcp-api-key"),
        (v.digits(10) + ":AA" + v.token(33, ALNUM + "_-"), "token do bot do Telegram {k}", ["bot do Telegram"], "pt",
         "Telegram Bot API token"),
        ("sk-ant-api03-" + v.token(93, ALNUM + "_-") + "AA", "Anthropic key: {k} (niet delen)", ["niet delen"], "nl",
         "gitleaks anthropic-api-key"),
    ]
    for k, text, keep, lang, source in keys:
        add("vendor_key", text.format(k=k), [k], keep, lang, source)
    # private_key (generated fresh here, used nowhere else)
    rsa_pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()).decode()
    ec_pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    ed_ssh = ed25519.Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()).decode()
    ec_sec1 = ec.generate_private_key(ec.SECP384R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()).decode()
    ed_pkcs8 = ed25519.Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    for pem, text, keep, lang in [
        (ed_ssh, "deploy key for the server:\n{k}\nput it in ~/.ssh", ["deploy key", "put it in ~/.ssh"], "en"),
        (rsa_pem, "Hier der Schlüssel aus der alten VM:\n{k}", ["alten VM"], "de"),
        (ec_pem, "la clave privada del certificado:\n{k}", ["clave privada del certificado"], "es"),
        (ec_sec1, "{k}\nc'est la clé du serveur nginx, tu peux vérifier ?", ["serveur nginx"], "fr"),
        (ed_pkcs8, "chiave privata:\n{k}", ["chiave privata"], "it"),
    ]:
        k = pem.strip()
        add("private_key", text.format(k=k), [k], keep, lang, "freshly generated key (cryptography, OpenSSH/PEM)")
    # seed_phrase
    for n, text, keep, lang in [
        (12, "my recovery phrase: {m}", ["recovery phrase"], "en"),
        (24, "Seed meiner Ledger:\n{m}", ["Seed meiner Ledger"], "de"),
        (12, "frase semilla de MetaMask → {m}", ["frase semilla"], "es"),
        (12, "{m}\nce sont les 12 mots de mon wallet", ["12 mots de mon wallet"], "fr"),
        (24, "le 24 parole di recupero: {m}", ["parole di recupero"], "it"),
        (12, "frase de recuperação: {m}", ["frase de recuperação"], "pt"),
    ]:
        m = v.bip39_mnemonic(n)
        if n == 24 and lang == "de":
            words = m.split()
            m = "\n".join(" ".join(words[i:i + 6]) for i in range(0, 24, 6))
        add("seed_phrase", text.format(m=m), [m], keep, lang, "BIP-39 mnemonic with checksum", [("bip39", m)])
    # otp
    for text, keep, lang, n in [
        ("Your Uber code is {o}. Never share this code. — can you log in for me?", ["can you log in for me"], "en", 4),
        ("Ihr Bestätigungscode lautet {o}", ["Bestätigungscode"], "de", 6),
        ("código de verificación de WhatsApp: {o}", ["WhatsApp"], "es", 6),
        ("le code à usage unique est {o}", ["usage unique"], "fr", 6),
        ("codice OTP {o} per la banca", ["per la banca"], "it", 6),
        ("O seu código MB WAY: {o}", ["MB WAY"], "pt", 6),
        ("DigiD sms-code: {o}", ["DigiD"], "nl", 6),
    ]:
        o = v.digits(n)
        if n == 6 and lang == "es":
            o = o[:3] + "-" + o[3:]
        add("otp", text.format(o=o), [o], keep, lang, "SMS one-time code phrasing")
    # iban
    for country, text, keep, lang in [
        ("IE", "pay the deposit to {i} please", ["pay the deposit"], "en"),
        ("AT", "Kontoverbindung: {i} (Raiffeisen)", ["Kontoverbindung"], "de"),
        ("ES", "mi cuenta es {i}, hazme la transferencia", ["hazme la transferencia"], "es"),
        ("FR", "RIB: {i}", ["RIB"], "fr"),
        ("IT", "IBAN per il rimborso {i}", ["per il rimborso"], "it"),
        ("PT", "o meu IBAN: {i}", ["o meu IBAN"], "pt"),
        ("NL", "rekeningnummer {i} t.n.v. J. de Vries", ["t.n.v."], "nl"),
    ]:
        i = v.iban_es(spaced=lang != "it") if country == "ES" else v.iban(country, spaced=lang != "it")
        checks = [("iban", i)] + {"FR": [("fr_iban_rib", i)], "IT": [("it_iban_cin", i)]}.get(country, [])
        add("iban", text.format(i=i), [i], keep, lang, "ISO 13616 IBAN", checks)
    # connection_string (secret = password part)
    p = [v.password(14).replace("@", "x").replace("#", "y").replace("%", "z").replace("?", "q") for _ in range(7)]
    cs = [
        (f"postgres://app:{p[0]}@db.internal:5432/shop", "DATABASE_URL is {c}, why does it time out?", ["db.internal:5432"], "en"),
        (f"mongodb+srv://admin:{p[1]}@cluster0.ab1cd.mongodb.net/test", "Verbindung: {c}", ["cluster0.ab1cd.mongodb.net"], "de"),
        (f"Server=sql01;Database=Ventas;User Id=sa;Password={p[2]};", "cadena de conexión: {c}", ["Server=sql01"], "es"),
        (f"redis://:{p[3]}@cache.local:6379/0", "l'URL redis: {c}", ["cache.local:6379"], "fr"),
        (f"amqp://guest:{p[4]}@rabbit:5672/", "stringa di connessione {c}", ["rabbit:5672"], "it"),
        (f"mysql -u root -p{p[5]} -h 10.0.0.4", "corre isto: {c}", ["-h 10.0.0.4"], "pt"),
        (f"jdbc:postgresql://pg:5432/crm?user=crm&password={p[6]}", "connectiestring {c}", ["pg:5432/crm"], "nl"),
    ]
    for i, (c, text, keep, lang) in enumerate(cs):
        add("connection_string", text.format(c=c), [p[i]], keep, lang, "libpq/MongoDB/ADO.NET/Redis/AMQP/MySQL/JDBC forms")
    # jwt
    for text, keep, lang in [
        ("Authorization: Bearer {j}\nwhy do I get 401?", ["why do I get 401"], "en"),
        ("das Token aus dem Cookie: {j}", ["aus dem Cookie"], "de"),
        ("este es el access_token {j}, ¿caducó?", ["caducó"], "es"),
        ("jeton JWT : {j}", ["jeton JWT"], "fr"),
        ("id_token={j}", ["id_token="], "it"),
        ("token de sessão {j}", ["token de sessão"], "pt"),
    ]:
        j = v.jwt({"sub": v.digits(8), "name": "user", "iat": 1765000000 + v.RNG.randint(0, 10 ** 6)})
        add("jwt", text.format(j=j), [j], keep, lang, "RFC 7519 HS256")
    return out
