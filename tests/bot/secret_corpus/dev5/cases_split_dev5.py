"""split cases: a label (or a request ending in one) in the first message, the value in the second."""
import string

import ids_dev5 as I
from id_numbers_dev4 import br_cpf, es_dni, fr_nir, it_codice_fiscale, nl_bsn, pt_nif, de_steuer_id, be_nn
from values_dev4 import case, iban, iban_es, luhn_number, password, token


def _card(prefix="4", length=16):
    n = luhn_number(prefix, length)
    return n, " ".join(n[i:i + 4] for i in range(0, len(n), 4))


def _typo(value):
    """The value with one character swapped for a neighbour, as a user mistypes it."""
    i = I.RNG.randrange(len(value))
    ch = value[i]
    if ch.isdigit():
        new = str((int(ch) + I.RNG.randint(1, 9)) % 10)
    elif ch.isalpha():
        new = I.RNG.choice([c for c in string.ascii_letters if c.lower() != ch.lower()])
    else:
        new = I.RNG.choice(string.ascii_letters)
    return value[:i] + new + value[i + 1:]


def cases():
    out = []

    def add(first, second, secret, keep, lang, source, checks=()):
        out.append(case("split", [first, second], secret, keep, lang, source, checks))

    # ---- English
    p = password(15)
    add("ok the wifi password for the cabin is", p, [p], ["the wifi password for the cabin"], "en",
        "password, value alone")
    pn = I.pin(4)
    add("Debit card PIN (so you can give it to the babysitter if needed):", f"it's {pn}", [pn],
        ["Debit card PIN"], "en", "card PIN with a word")
    c = I.pin(3)
    add(f"Card for the booking is the Visa ending {I.digits(4)}, exp 09/28. CVV is", c, [c], ["Card for the booking"],
        "en", "CVV alone after a label naming a card by its last digits")
    v = I.ee_ik()
    add("what's needed: full name, isikukood", f"Mari Kask, {v}", [v], ["full name, isikukood"], "en",
        "Estonian personal code after a list of fields", [("ee_ik", v)])
    ib = iban("GB")
    add("Can you send the deposit back to this account? IBAN:", f"👇\n{ib}", [ib], ["send the deposit back"], "en",
        "IBAN after an emoji", [("iban", ib)])
    o = I.digits(6)
    add("they just texted me a code for the login, here", f"ok here: {o}", [o], ["texted me a code"], "en",
        "one-time code after 'ok here:'")
    k = "sk_live_" + token(24)
    add("stripe secret key (live) for the invoice script:", k, [k], ["stripe secret key"], "en",
        "Stripe live secret key alone")
    p = password(12)
    w = _typo(p)
    add("netflix login is our email, pw", f"{w}\nwait no, {p}", [w, p], ["netflix login is our email"], "en",
        "password with a typo, then the correction (both secret)")
    v = I.sg_nric()
    add("NRIC?", f"{v} – why do they need that for a gym membership though", [v], ["NRIC?"], "en",
        "Singapore NRIC answering a one-word question", [("sg_nric", v)])
    pk = I.digits(8)
    add("New SIM arrived, it asks for the PUK. The PUK code on the card is", pk, [pk], ["New SIM arrived"], "en",
        "SIM PUK split")
    k = "ghp_" + token(36)
    add("GitHub token for the CI runner, don't post it anywhere:", f"> {k}", [k], ["GitHub token for the CI runner"],
        "en", "GitHub PAT quoted with '>'")
    v = I.gb_nhs()
    add("the pharmacy form wants my NHS number →", f"{v[:3]} {v[3:6]} {v[6:]} (Sarah Mills)",
        [f"{v[:3]} {v[3:6]} {v[6:]}"], ["the pharmacy form"], "en", "NHS number with the name", [("gb_nhs", v)])
    # ---- German
    p = password(14)
    add("Das Passwort fürs Router-Menü lautet:", p, [p], ["Router-Menü"], "de", "router password alone")
    pn = I.pin(4)
    add("Oma hat gefragt, wie die PIN von ihrer EC-Karte nochmal war. Die PIN:", f"{pn} (nicht weitersagen 🙈)",
        [pn], ["EC-Karte"], "de", "EC card PIN of a relative with emoji")
    v = de_steuer_id()
    add("Bitte trag mich ins Elster-Formular ein, Steuer-ID folgt", v, [v], ["Elster-Formular"], "de",
        "German tax ID after a request", [("de_idnr", v)])
    ib = iban("DE")
    add("Kontoverbindung für die Kaution, IBAN", f"also: {ib}", [ib], ["Kontoverbindung für die Kaution"], "de",
        "German IBAN with 'also:'", [("iban", ib)])
    o = I.digits(6)
    add("Der Bestätigungscode von der Sparkasse (pushTAN) ist", f"{o[:3]} {o[3:]}", [f"{o[:3]} {o[3:]}"],
        ["Bestätigungscode von der Sparkasse"], "de", "TAN split into two groups")
    c = I.pin(3)
    w = _typo(c)
    add("Prüfziffer hinten auf der Karte:", f"{w}, ne sorry, {c}", [w, c], ["Prüfziffer hinten"], "de",
        "card security code with a typo and the correction")
    v = I.de_kvnr()
    add("Versichertennummer von der neuen Karte:", f"{v}", [v], ["Versichertennummer"], "de",
        "German KVNR alone", [("de_kvnr", v)])
    k = "AKIA" + token(16, string.ascii_uppercase + string.digits)
    s = token(40, string.ascii_letters + string.digits + "/+")
    add("AWS Zugangsdaten fürs Backup-Skript, Key-ID und Secret:", f"{k}\n{s}", [s], ["AWS Zugangsdaten"], "de",
        "AWS key pair; the secret access key is the secret (the key ID is an identifier)")
    n, shown = _card("5", 16)
    add("Kreditkartennummer für die Ferienwohnung", shown, [shown], ["Kreditkartennummer"], "de",
        "Mastercard number alone", [("luhn", n)])
    # ---- Spanish
    p = password(13)
    add("la contraseña del portal del empleado es", f"{p} (con mayúsculas)", [p], ["portal del empleado"], "es",
        "password with a note")
    pn = I.pin(4)
    add("¿Me recuerdas el pin del móvil? Te lo apunto aquí para que lo tengas:", pn, [pn], ["el pin del móvil"], "es",
        "phone PIN")
    v = es_dni()
    add("Para la reserva del pádel necesitan tu DNI, el mío es", f"{v}, y el tuyo mándamelo luego", [v],
        ["reserva del pádel"], "es", "Spanish DNI after a request", [("es_dni", v)])
    ib = iban_es()
    add("Te paso el IBAN para lo de la cena", f"{ib}\ngracias!!", [ib], ["lo de la cena"], "es",
        "Spanish IBAN with thanks", [("iban", ib)])
    o = I.digits(6)
    add("me ha llegado un SMS con el código de verificación de Bizum:", f"código {o}", [o],
        ["código de verificación de Bizum"], "es", "Bizum verification code")
    c = I.pin(3)
    add("los tres números de atrás de la tarjeta son", f"{c} 👍", [c], ["los tres números de atrás"], "es",
        "CVC described casually")
    v = I.co_nit()
    add("NIT para la factura:", v, [v], ["NIT para la factura"], "es", "Colombian NIT alone", [("co_nit", v)])
    k = "sk-proj-" + token(48, string.ascii_letters + string.digits + "-_")
    add("Mi clave de la API de OpenAI, para el bot:", k, [k], ["clave de la API de OpenAI"], "es",
        "OpenAI project key")
    v = I.uy_ci()
    w = _typo(v)
    add("CI de mi viejo:", f"{w}\nperdón, es {v}", [w, v], ["CI de mi viejo"], "es",
        "Uruguayan CI with a typo, then the correction", [("uy_ci", v)])
    n, shown = _card("4", 16)
    add("Número de la tarjeta para pagar la matrícula:", n, [n], ["pagar la matrícula"], "es",
        "card number compact", [("luhn", n)])
    # ---- French
    p = password(16)
    add("Le mot de passe de la box (au cas où) :", p, [p], ["mot de passe de la box"], "fr", "box password alone")
    pn = I.pin(4)
    add("Code de la carte bleue de papa, il me l'a demandé de le noter", f"c'est {pn}", [pn],
        ["Code de la carte bleue"], "fr", "card code of a parent")
    v = fr_nir()
    add("Pour la mutuelle il faut mon numéro de sécu :", v, [v], ["Pour la mutuelle"], "fr", "French NIR alone",
        [("fr_nir", v)])
    ib = iban("FR")
    add("Mon RIB, IBAN :", f"ok voilà {ib}", [ib], ["Mon RIB"], "fr", "French IBAN after 'ok voilà'",
        [("iban", ib), ("fr_iban_rib", ib)])
    o = I.digits(6)
    add("Le code reçu par SMS pour valider le paiement 3D Secure c'est", o, [o], ["valider le paiement"], "fr",
        "3-D Secure SMS code")
    c = I.pin(3)
    add("cryptogramme visuel ?", f"{c} (au dos)", [c], ["cryptogramme visuel ?"], "fr", "French CVV split")
    v = I.lu_matricule()
    add("Matricule CNS de Léa :", v, [v], ["Matricule CNS"], "fr", "Luxembourg matricule alone",
        [("lu_matricule", v)])
    k = "xoxb-" + I.digits(12) + "-" + I.digits(13) + "-" + token(24)
    add("token du bot Slack pour les alertes :", f"↓\n{k}", [k], ["token du bot Slack"], "fr", "Slack bot token")
    pk = I.digits(8)
    add("Mon téléphone est bloqué, le code PUK est noté ici :", f"PUK {pk}", [pk], ["le code PUK est noté ici"],
        "fr", "PUK with its label repeated")
    v = I.th_pin()
    add("numéro de la carte d'identité thaïe de Malee", f"{v[0]} {v[1:5]} {v[5:10]} {v[10:12]} {v[12]}",
        [f"{v[0]} {v[1:5]} {v[5:10]} {v[10:12]} {v[12]}"], ["carte d'identité thaïe"], "fr",
        "Thai PIN spaced", [("th_pin", v)])
    # ---- Italian
    p = password(12)
    add("Password della posta certificata (PEC):", p, [p], ["posta certificata"], "it", "PEC password")
    pn = I.pin(5)
    add("Il PIN del bancomat di nonna è", f"{pn} ma non dirlo a nessuno", [pn], ["bancomat di nonna"], "it",
        "5-digit card PIN")
    v = it_codice_fiscale("RSS", "MRA")
    add("Codice fiscale per la prenotazione della visita:", v, [v], ["prenotazione della visita"], "it",
        "Italian codice fiscale alone", [("it_cf", v)])
    ib = iban("IT")
    add("ti giro l'IBAN per il regalo di gruppo", f"eccolo: {ib}", [ib], ["regalo di gruppo"], "it",
        "Italian IBAN", [("iban", ib), ("it_iban_cin", ib)])
    o = I.digits(6)
    add("codice OTP di Poste:", f"{o}\n(scade tra 5 min)", [o], ["codice OTP di Poste"], "it", "OTP with expiry note")
    c = I.pin(4)
    add("Amex che finisce con 1" + I.digits(3) + ", il codice di sicurezza sul fronte è", c, [c],
        ["il codice di sicurezza sul fronte"], "it", "Amex 4-digit CID after a label naming the card")
    v = I.si_emso()
    add("EMŠO del mio collega sloveno per il badge:", v, [v], ["per il badge"], "it", "Slovenian EMŠO alone",
        [("si_emso", v)])
    k = "hf_" + token(34)
    add("token di Hugging Face (read) per scaricare il modello", f"👉 {k}", [k], ["token di Hugging Face"], "it",
        "Hugging Face token after an emoji")
    pn = I.pin(6)
    add("codice dispositivo dell'app della banca", f"{pn} — quello nuovo", [pn], ["app della banca"], "it",
        "bank app 6-digit PIN")
    # ---- Portuguese
    p = password(14)
    add("a senha do wi-fi do escritório é", p, [p], ["wi-fi do escritório"], "pt", "wifi password")
    pn = I.pin(4)
    add("Qual é o PIN do cartão? Vou anotar:", f"{pn}", [pn], ["PIN do cartão"], "pt", "card PIN")
    v = pt_nif()
    add("NIF para a fatura, por favor:", f"{v}", [v], ["NIF para a fatura"], "pt", "Portuguese NIF alone",
        [("pt_nif", v)])
    ib = iban("PT")
    add("IBAN para a transferência da renda", f"{ib} (Millennium)", [ib], ["transferência da renda"], "pt",
        "Portuguese IBAN", [("iban", ib)])
    o = I.digits(6)
    add("O código de verificação do WhatsApp que chegou:", f"{o[:3]}-{o[3:]}", [f"{o[:3]}-{o[3:]}"],
        ["código de verificação do WhatsApp"], "pt", "WhatsApp code with dash")
    c = I.pin(3)
    add("código de segurança (CVV) do cartão da empresa", f"é o {c}", [c], ["cartão da empresa"], "pt",
        "company card CVV")
    v = br_cpf()
    w = _typo(v)
    add("meu CPF pro cadastro no app:", f"{w}\nops, {v}", [w, v], ["cadastro no app"], "pt",
        "CPF with a typo, then the correction", [("br_cpf", v)])
    k = "glpat-" + token(20, string.ascii_letters + string.digits + "-_")
    add("Token do GitLab para o deploy:", k, [k], ["Token do GitLab"], "pt", "GitLab PAT")
    n, shown = _card("4", 16)
    add("número do cartão pra pagar o hotel", shown.replace(" ", "."), [shown.replace(" ", ".")],
        ["pagar o hotel"], "pt", "card number dotted", [("luhn", n)])
    # ---- Dutch
    p = password(13)
    add("wachtwoord van de gedeelde mailbox:", p, [p], ["gedeelde mailbox"], "nl", "shared mailbox password")
    pn = I.pin(4)
    add("pincode van de bankpas van mam, voor als ze het weer vergeet", f"{pn} 😬", [pn],
        ["bankpas van mam"], "nl", "debit card PIN of a parent with emoji")
    v = nl_bsn()
    add("De gemeente wil mijn BSN, dat is", v, [v], ["De gemeente wil mijn BSN"], "nl", "BSN after a sentence",
        [("nl_bsn", v)])
    ib = iban("NL")
    add("Rekeningnummer voor de Tikkie-vervanger:", ib, [ib],
        ["Rekeningnummer"], "nl", "Dutch IBAN", [("iban", ib)])
    o = I.digits(6)
    add("DigiD sms-code:", f"{o}", [o], ["DigiD sms-code"], "nl", "DigiD SMS code")
    c = I.pin(3)
    add("beveiligingscode achterop de creditcard", f"ok hier: {c}", [c], ["achterop de creditcard"], "nl",
        "CVC after 'ok hier:'")
    v = be_nn()
    add("rijksregisternummer van de kleine voor de kinderbijslag", v, [v], ["kinderbijslag"], "nl",
        "Belgian national number of a child", [("be_nn", v)])
    k = "sk-ant-api03-" + token(93, string.ascii_letters + string.digits + "-_") + "AA"
    add("Anthropic API-sleutel voor de test-omgeving:", k, [k], ["Anthropic API-sleutel"], "nl", "Anthropic key")
    p = password(11)
    w = _typo(p)
    add("alarm app wachtwoord", f"{w}... nee wacht: {p}", [w, p], ["alarm app wachtwoord"], "nl",
        "password with a typo and the correction")
    pn = I.pin(4)
    add("Code van het alarm in het vakantiehuis?", f"die is {pn}, daarna # drukken", [pn],
        ["vakantiehuis"], "nl", "alarm code")
    # ---- more mixed
    v = I.hr_oib()
    add("Forwarded message:\n> Please reply with your OIB", f"> {v}", [v], ["Please reply with your OIB"], "en",
        "forwarded question and answer, Croatian OIB", [("hr_oib", v)])
    v = I.ro_cnp()
    add("CNP-ul pentru asigurare? / the CNP for the insurance:", f"{v} (Andrei)", [v], ["for the insurance"], "en",
        "Romanian CNP with the name", [("ro_cnp", v)])
    v = I.my_nric()
    add("IC no. for the parcel locker signup", f"{v}\nthx", [v], ["parcel locker signup"], "en",
        "Malaysian IC", [("my_nric", v)])
    ib = iban("AT")
    add("IBAN vom Vermieter in Graz (hat er mir geschickt, ich schick's dir weiter):", ib, [ib],
        ["Vermieter in Graz"], "de", "Austrian IBAN forwarded", [("iban", ib)])
    return out
