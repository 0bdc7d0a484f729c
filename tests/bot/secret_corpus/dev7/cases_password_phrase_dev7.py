"""password_phrase cases for dev7: passwords, passphrases, Wi-Fi keys in seven languages. Hand-written."""
from ids_dev7 import RNG, case, digits, password, pin

K = "password_phrase"

WORDS = ["maple", "orbit", "velvet", "canyon", "pickle", "harbor", "tundra", "lantern", "cobalt", "meadow", "falcon",
         "walnut", "ember", "quartz", "saffron", "glacier", "pepper", "ripple", "thistle", "comet"]


def phrase(n=4, sep="-"):
    return sep.join(RNG.sample(WORDS, n))


def human_pw():
    base = RNG.choice(["Luna", "Bruno", "Sunny", "Mochi", "Pelusa", "Kiki", "Tobi", "Nala"])
    return f"{base}{RNG.choice(['!', '#', '.', '_', '@'])}{RNG.randint(10, 99)}{RNG.choice(['x', 'Z', 'ok', 'bb'])}"


def cases():
    out = []
    p = password(12)
    out.append(case(K, f"log in as anna with {p} and download the March invoices", [p],
                    ["log in as anna", "download the March invoices"], "en", "no label, clear login context"))
    p = human_pw()
    out.append(case(K, f"pw is {p} dont laugh", [p], ["dont laugh"], "en", "abbreviation pw"))
    p = password(16)
    out.append(case(K, f"wifi pass: {p}\nnetwork is the one ending in _5G", [p], ["network is the one ending in _5G"],
                    "en", "Wi-Fi key"))
    p = phrase(4)
    out.append(case(K, f"new master passphrase for the vault is {p} — write it on paper, not here 🙃", [p],
                    ["master passphrase", "write it on paper"], "en", "diceware-style passphrase"))
    p = password(10)
    out.append(case(K, f"```\nuser: deploy\npassword: {p}\n```\nthat's for the staging box", [p],
                    ["user: deploy", "staging box"], "en", "code block"))
    p = password(11)
    q = password(13)
    out.append(case(K, f"accounts:\n• netflix – sam.k@mail.com / {p}\n• spotify – same email / {q}", [p, q],
                    ["netflix", "spotify"], "en", "list of accounts with slash separator"))
    p = human_pw()
    out.append(case(K, f"the password is \"{p}\" with the quotes removed obviously", [p],
                    ["with the quotes removed obviously"], "en", "quoted password"))
    p = password(9)
    out.append(case(K, f"passwd for router admin page = {p} (192.168.1.1)", [p], ["router admin page", "192.168.1.1"],
                    "en", "passwd, router"))
    p = pin(6)
    out.append(case(K, f"my laptop password is just {p}, I know I know", [p], ["my laptop password", "I know I know"],
                    "en", "numeric password"))
    p = password(14)
    out.append(case(K, f"> did you change it?\nyep, it's {p} now", [p], ["did you change it?"], "en",
                    "quoted reply, pronoun context"))
    p = password(12)
    out.append(case(K, f"Mein Passwort für die Krankenkassen-App: {p} – falls ich's wieder vergesse", [p],
                    ["Krankenkassen-App", "falls ich's wieder vergesse"], "de", "Passwort"))
    p = password(10)
    out.append(case(K, f"Kennwort vom Büro-PC ist {p}, Benutzer ist wie immer mein Nachname", [p],
                    ["Kennwort vom Büro-PC", "Benutzer ist wie immer mein Nachname"], "de", "Kennwort"))
    p = password(15)
    out.append(case(K, f"WLAN-Schlüssel: {p} (steht auch hinten auf der Fritzbox)", [p],
                    ["WLAN-Schlüssel", "Fritzbox"], "de", "WLAN key"))
    p = human_pw()
    out.append(case(K, f"pw fürs Netflix-Konto {p} – teilen wir uns ja eh", [p], ["Netflix-Konto"], "de",
                    "pw in German"))
    p = phrase(3, " ")
    out.append(case(K, f"Das Passwort sind drei Wörter mit Leerzeichen: {p}", [p], ["drei Wörter mit Leerzeichen"],
                    "de", "space-separated passphrase"))
    p = password(12)
    out.append(case(K, f"Zugangsdaten Elster:\nBenutzer: fam.krueger\nPW: {p}", [p], ["Zugangsdaten Elster",
                    "fam.krueger"], "de", "pasted credentials"))
    p = password(11)
    out.append(case(K, f"la contraseña del wifi es {p}, la red se llama MOVISTAR_2F1A", [p],
                    ["la red se llama MOVISTAR_2F1A"], "es", "Wi-Fi contraseña next to SSID"))
    p = human_pw()
    out.append(case(K, f"contra del insta: {p} no me lo hackees jaja", [p], ["del insta", "no me lo hackees"], "es",
                    "slang 'contra'"))
    p = password(13)
    out.append(case(K, f"entra con mi usuario (marta.lg) y clave {p} a la web del banco y mira si llegó la nómina", [p],
                    ["marta.lg", "si llegó la nómina"], "es", "clave"))
    p = password(10)
    out.append(case(K, f"Contraseña: {p}\nUsuario: el correo de la empresa", [p], ["Usuario: el correo de la empresa"],
                    "es", "form order reversed"))
    p = pin(6)
    out.append(case(K, f"la pass del portátil es {p} solo números", [p], ["la pass del portátil", "solo números"],
                    "es", "pass numeric"))
    p = password(12)
    out.append(case(K, f"mdp du compte Ameli : {p}", [p], ["compte Ameli"], "fr", "mdp"))
    p = password(14)
    out.append(case(K, f"Le mot de passe wifi c'est {p} (attention au zéro et au O)", [p],
                    ["Le mot de passe wifi", "attention au zéro"], "fr", "mot de passe"))
    p = human_pw()
    out.append(case(K, f"connecte-toi avec mon compte, identifiant c.moreau et {p} derrière", [p],
                    ["identifiant c.moreau"], "fr", "no label, identifiant + value"))
    p = phrase(4, ".")
    out.append(case(K, f"phrase de passe du coffre KeePass : {p}", [p], ["KeePass"], "fr", "passphrase with dots"))
    p = password(9)
    out.append(case(K, f"MDP: {p} / login: elodie84", [p], ["login: elodie84"], "fr", "MDP uppercase"))
    p = password(12)
    out.append(case(K, f"la password della mail è {p}, controlla se è arrivata la fattura", [p],
                    ["la password della mail", "la fattura"], "it", "password in Italian"))
    p = password(10)
    out.append(case(K, f"pwd wifi casa nonna: {p}", [p], ["casa nonna"], "it", "pwd"))
    p = human_pw()
    out.append(case(K, f"entra nel registro elettronico di Giulia, utente è il suo cf e la pw {p}", [p],
                    ["registro elettronico", "utente è il suo cf"], "it", "school portal"))
    p = password(13)
    out.append(case(K, f"Parola d'ordine del gruppo: {p}", [p], ["Parola d'ordine"], "it", "parola d'ordine"))
    p = password(11)
    out.append(case(K, f"chiave di rete {p}", [p], ["chiave di rete"], "it", "network key"))
    p = password(12)
    out.append(case(K, f"senha do gov.br: {p} — usa pra ver o IRPF", [p], ["senha do gov.br", "IRPF"], "pt", "senha"))
    p = human_pw()
    out.append(case(K, f"a senha do wi-fi é {p} tudo junto", [p], ["tudo junto"], "pt", "wi-fi senha"))
    p = password(10)
    out.append(case(K, f"entra no meu email com {p}, e vê se o código chegou", [p], ["e vê se o código chegou"], "pt",
                    "no label, 'entra no meu email com'"))
    p = password(14)
    out.append(case(K, f"pass do portal das finanças {p}", [p], ["portal das finanças"], "pt", "pass (pt)"))
    p = password(12)
    out.append(case(K, f"wachtwoord DigiD: {p} (niet doorsturen!)", [p], ["DigiD", "niet doorsturen"], "nl",
                    "wachtwoord"))
    p = password(15)
    out.append(case(K, f"wifi code is {p}, netwerk heet Ziggo-Thuis", [p], ["netwerk heet Ziggo-Thuis"], "nl",
                    "Wi-Fi 'code'"))
    p = human_pw()
    out.append(case(K, f"ww van de laptop {p}", [p], ["van de laptop"], "nl", "abbreviation ww"))
    p = phrase(5, " ")
    out.append(case(K, f"passphrase for the backup drive (all lowercase, spaces): {p}", [p],
                    ["backup drive", "all lowercase, spaces"], "en", "5-word passphrase"))
    p = password(12)
    out.append(case(K, f"ssh in as root@10.0.4.12 pass {p} and restart nginx", [p], ["10.0.4.12", "restart nginx"],
                    "en", "server pass"))
    p = password(10)
    q = password(10)
    out.append(case(K, f"old pw {p}\nnew pw {q}\nkeep the old one in case the change didn't stick", [p, q],
                    ["keep the old one"], "en", "old and new passwords"))
    p = password(12)
    out.append(case(K, f"Hi! Zoom passcode {p} — see you at 3", [p], ["see you at 3"], "en", "meeting passcode"))
    p = human_pw()
    out.append(case(K, f"Passwort lautet {p}!!", [p], ["Passwort lautet"], "de", "trailing exclamation marks"))
    p = password(11)
    out.append(case(K, f"le code wifi du gîte : {p} (réseau GITE-DES-PINS)", [p], ["GITE-DES-PINS"], "fr",
                    "Wi-Fi code in holiday rental"))
    p = password(12)
    out.append(case(K, f"usuário: loja_centro\nsenha: {p}\nnão muda nada no sistema por favor", [p],
                    ["usuário: loja_centro", "não muda nada"], "pt", "pasted login"))
    return out
