"""Secrets sent over two messages (label, then value), and look-alikes near identity numbers and splits."""
from values_dev4 import case, spoil
import id_numbers_dev4 as ids
import values_dev4 as v


def splits():
    out = []

    def add(label, second, secret, keep, lang, source, checks=()):
        out.append(case("split", [label, second], secret, keep, lang, source, checks))

    p = v.password()
    add("my password is:", p, [p], ["my password is:"], "en", "chat: label then value")
    p = v.password(12)
    add("the wifi code →", p, [p], ["the wifi code"], "en", "chat: arrow label")
    pin = v.digits(4)
    add("PIN below", pin, [pin], ["PIN below"], "en", "chat: PIN after a heads-up")
    k = "sk-proj-" + v.token(48, v.string.ascii_letters + v.string.digits + "_-")
    add("ok here's the key", k, [k], ["here's the key"], "en", "OpenAI project key shape (sk-proj-)")
    i = v.iban("GB")
    add("IBAN:", i, [i], ["IBAN:"], "en", "ISO 13616 IBAN", [("iban", i)])
    s = ids.ca_sin()
    f = f"{s[:3]} {s[3:6]} {s[6:]}"
    add("Can you help me finish the CRA form? It wants my SIN, which is", f, [f], ["CRA form"], "en",
        "goal ending with a label", [("ca_sin", s)])
    c = v.luhn_number("4", 16)
    f = v.group(c, [4, 4, 4, 4])
    add("card number in the next message, then book the hotel please", f, [f], ["book the hotel"], "en",
        "card split over two messages", [("luhn", c)])
    o = v.digits(6)
    add("the code they just texted me:", f"{o[:3]} {o[3:]}", [f"{o[:3]} {o[3:]}"], ["texted me"], "en", "SMS OTP relayed")
    m = v.bip39_mnemonic()
    add("seed words (don't judge me, I know):", m, [m], ["seed words"], "en", "BIP-39 12 words", [("bip39", m)])
    s = ids.us_ssn()
    add("Please fill in the I-9 for me. SSN:", s, [s], ["fill in the I-9"], "en", "goal ending with a label",
        [("us_ssn", s)])
    p, q = v.password(10), None
    q = p[:-1] + ("x" if p[-1] != "x" else "y")
    add("db password, next msg", f"{q}\nsorry typo: {p}", [q, p], ["db password", "sorry typo"], "en", "value with a correction")
    p = v.password(11)
    add("Mein Passwort lautet:", p, [p], ["Mein Passwort lautet"], "de", "chat: German label")
    p = v.password(16)
    add("WLAN-Schlüssel ↓", f"{p} (Groß-/Kleinschreibung beachten)", [p], ["WLAN-Schlüssel", "Kleinschreibung beachten"],
        "de", "value with a few words")
    pin = v.digits(4)
    add("Die PIN kommt gleich, Moment", f"{pin}", [pin], ["Die PIN kommt gleich"], "de", "PIN after a heads-up")
    i = v.iban("DE")
    add("IBAN für die Überweisung an den Vermieter:", i, [i], ["Überweisung an den Vermieter"], "de", "IBAN", [("iban", i)])
    t = ids.de_steuer_id()
    add("Bitte trag mich ins Formular für die Lohnsteuer ein, meine Steuer-ID ist", t, [t], ["Formular für die Lohnsteuer"],
        "de", "goal ending with a label", [("de_idnr", t)])
    p = v.password(13)
    add("mi contraseña es:", p, [p], ["mi contraseña es"], "es", "chat: Spanish label")
    d = ids.es_dni()
    add("el DNI de mi madre para la cita del médico:", d, [d], ["cita del médico"], "es", "DNI of a relative",
        [("es_dni", d)])
    p = v.password(12)
    add("la clave del wifi →", p, [p], ["la clave del wifi"], "es", "arrow label")
    o = v.digits(6)
    add("te paso el código que me llegó al móvil", o, [o], ["código que me llegó"], "es", "SMS OTP relayed")
    n = ids.es_nie()
    wrong = n[:-1] + ("A" if n[-1] != "A" else "B")
    add("NIE:", f"{wrong}\nperdona, es este: {n}", [wrong, n], ["NIE:", "perdona, es este"], "es", "correction of an NIE",
        [("es_nie", n)])
    p = v.password(12)
    add("mon mot de passe :", p, [p], ["mon mot de passe"], "fr", "French label (with the space before the colon)")
    o = v.digits(6)
    add("voici le code reçu par SMS", f"c'est {o}", [o], ["code reçu par SMS", "c'est"], "fr", "OTP with a few words")
    n = ids.fr_nir()
    add("mon numéro de sécu ci-dessous, pour la mutuelle", n, [n], ["pour la mutuelle"], "fr", "NIR", [("fr_nir", n)])
    i = v.iban("FR")
    add("IBAN :", i, [i], ["IBAN :"], "fr", "IBAN", [("iban", i), ("fr_iban_rib", i)])
    code = v.digits(1) + v.RNG.choice("AB") + v.digits(4)
    add("le digicode de l'immeuble c'est", code, [code], ["digicode de l'immeuble"], "fr", "door code")
    p = v.password(10)
    add("la password è:", p, [p], ["la password è"], "it", "Italian label")
    c = ids.it_codice_fiscale("FRR", "PLA")
    add("codice fiscale:", c, [c], ["codice fiscale:"], "it", "codice fiscale", [("it_cf", c)])
    pin = v.digits(5)
    add("il PIN del bancomat, non dirlo a nessuno", pin, [pin], ["non dirlo a nessuno"], "it", "bank card PIN")
    i = v.iban("IT")
    add("IBAN qui sotto 👇", i, [i], ["IBAN qui sotto"], "it", "IBAN", [("iban", i), ("it_iban_cin", i)])
    p = v.password(14)
    add("a minha senha é:", p, [p], ["a minha senha é"], "pt", "Portuguese label")
    n = ids.pt_nif()
    add("Preciso que preenchas o formulário das Finanças. NIF:", n, [n], ["formulário das Finanças"], "pt",
        "goal ending with a label", [("pt_nif", n)])
    c = ids.br_cpf()
    add("CPF do meu pai →", c, [c], ["CPF do meu pai"], "pt", "CPF of a relative", [("br_cpf", c)])
    o = v.digits(6)
    add("código de verificação:", f"{o} (expira em 5 min)", [o], ["código de verificação", "expira em 5 min"], "pt",
        "OTP with a few words")
    p = v.password(12)
    add("mijn wachtwoord is:", p, [p], ["mijn wachtwoord is"], "nl", "Dutch label")
    b = ids.nl_bsn()
    add("BSN:", b, [b], ["BSN:"], "nl", "BSN", [("nl_bsn", b)])
    pin = v.digits(4)
    add("de pincode komt zo", f"{pin}\nniet doorsturen!", [pin], ["de pincode komt zo", "niet doorsturen"], "nl",
        "PIN with a warning")
    i = v.iban("NL")
    add("IBAN hieronder, voor de huur", i, [i], ["voor de huur"], "nl", "IBAN", [("iban", i)])
    k = "ghp_" + v.token(36)
    add("Set up the GitHub action for the repo, the token is", k, [k], ["GitHub action"], "en",
        "goal ending with a label; gitleaks github-pat shape")
    p = v.password(9)
    add("Log into my Netflix and cancel it please. Email is sam.k@example.net, password", p, [p],
        ["cancel it please"], "en", "goal ending with a label")
    w = " ".join(v.RNG.choice(v.BIP39) for _ in range(4))
    add("new passphrase for the family vault:", w, [w], ["family vault"], "en", "four-word passphrase")
    a = ids.in_aadhaar()
    add("aadhaar no.", a, [a], ["aadhaar no."], "en", "Aadhaar", [("in_aadhaar", a)])
    o = v.digits(6)
    add("Bestätigungscode von der Bank:", f"{o} – schnell, läuft ab!", [o], ["Bestätigungscode von der Bank", "läuft ab"],
        "de", "PSD2 TAN relayed")
    return out


def lookalikes():
    out = []

    def add(messages, keep, lang, source, checks=()):
        out.append(case("lookalike", messages, [], keep, lang, source, checks))

    # ID-shaped numbers that fail their check digit, labelled as order/customer/booking numbers
    x = spoil(ids.nl_bsn())
    add(f"Bestelnummer {x}, wanneer wordt het bezorgd?", [x, "Bestelnummer"], "nl", "9-digit order no. failing BSN",
        [("nl_bsn_fail", x)])
    x = spoil(ids.de_steuer_id())
    add(f"Meine Kundennummer bei den Stadtwerken ist {x}, schreib bitte wegen der Abschlagszahlung", [x], "de",
        "11-digit customer no. failing Steuer-ID", [("de_idnr_fail", x)])
    x = spoil(ids.ca_sin())
    add(f"Order #{x} still hasn't shipped, can you write to support?", [x], "en", "9-digit order no. failing Luhn",
        [("ca_sin_fail", x)])
    x = spoil(ids.br_cpf())
    add(f"protocolo de atendimento {x}, ligaram e não resolveram", [x], "pt", "CPF-shaped protocol no. failing checks",
        [("br_cpf_fail", x)])
    x = spoil(ids.pl_pesel())
    add(f"Invoice number {x} from the Polish supplier is overdue", [x], "en", "11-digit invoice no. failing PESEL",
        [("pl_pesel_fail", x)])
    x = spoil(ids.in_aadhaar())
    add(f"my electricity consumer number is {x}, can you find the bill?", [x], "en", "12-digit consumer no. failing Verhoeff",
        [("in_aadhaar_fail", x)])
    x = v.digits(8)
    x = x + "TRWAGMYFPDXBNJZSQVHLCKE"[(int(x) + 5) % 23]
    add(f"Nº de pedido {x}: ¿dónde está mi paquete?", [x], "es", "order no. shaped like a DNI, wrong letter",
        [("es_dni_fail", x)])
    x = spoil(ids.pt_nif())
    add(f"Referência do pedido {x}", [x], "pt", "9-digit reference failing NIF", [("pt_nif_fail", x)])
    x = spoil(ids.fr_nir().replace(" ", ""))
    add(f"Numéro de dossier {x} — relance la mairie stp", [x], "fr", "15-digit case no. failing NIR key",
        [("fr_nir_fail", x)])
    x = spoil(ids.tr_tckimlik())
    add(f"Kargo takip: {x} — sorry, shipment tracking no from Trendyol, where is it?", [x], "en",
        "11-digit tracking no. failing TC Kimlik", [("tr_tckimlik_fail", x)])
    # Public or specimen numbers
    add("HMRC's own example NINO is QQ 12 34 56 C, is mine supposed to look like that?", ["QQ 12 34 56 C"], "en",
        "HMRC specimen NINO (QQ never issued)")
    add("Is 078-05-1120 the SSN from the Woolworth wallet story? Write me a paragraph about it", ["078-05-1120"], "en",
        "SSA: publicly voided SSN", [("us_ssn_fail", "078-05-1120")])
    add("The form shows the SSN as XXX-XX-4821, is that ok to send?", ["XXX-XX-4821"], "en", "masked SSN")
    add("Mein Ausweis endet auf …47, reicht das für die Buchung?", ["…47"], "de", "masked ID")
    add("Das Beispiel im BZSt-Merkblatt: 12 345 678 901 – warum ist das keine echte Steuer-ID?", ["12 345 678 901"], "de",
        "specimen Steuer-ID shape", [("de_idnr_fail", "12345678901")])
    add("What does the P< at the start of a passport MRZ line mean?", ["P<", "MRZ"], "en", "question about the MRZ")
    add("Come si calcola il carattere di controllo del codice fiscale?", ["carattere di controllo"], "it",
        "question, no number")
    add("Hoe vraag ik een BSN aan voor mijn pasgeboren zoon?", ["BSN aan"], "nl", "question, no number")
    # Business identifiers printed on invoices
    n = "5" + v.digits(7)
    c = 11 - sum(int(a) * w for a, w in zip(n, range(9, 1, -1))) % 11
    n += str(0 if c >= 10 else c)
    add(f"A fatura da empresa tem o NIPC {n}, está certo?", [n], "pt", "Portuguese company NIPC (public, printed on invoices)",
        [("pt_nif", n)])
    s = v.luhn_number("8", 9)
    s14 = v.luhn_number(s, 14)
    add(f"SIRET du fournisseur : {s14[:3]} {s14[3:6]} {s14[6:9]} {s14[9:]} — tu peux vérifier sur l'annuaire ?",
        [f"{s14[:3]} {s14[3:6]} {s14[6:9]} {s14[9:]}"], "fr", "SIRET, Luhn, public", [("luhn", s14)])
    add("USt-IdNr. des Lieferanten: DE 811 907 980 – kommt auf die Rechnung", ["DE 811 907 980"], "de",
        "VAT number of a company (public)")
    r = f"76.{v.digits(3)}.{v.digits(3)}-K"
    add(f"La boleta dice RUT empresa {r}, ¿es una empresa real?", [r, "RUT empresa"], "es",
        "company RUT printed on a receipt (public)")
    # A label with the value promised for later
    add("Meine Steuer-ID schick ich dir morgen, die steht auf dem Brief vom Finanzamt", ["Steuer-ID schick ich dir morgen"],
        "de", "label without value")
    add("my SIN is on the letter from Service Canada, I'll look it up tonight", ["I'll look it up tonight"], "en",
        "label without value")
    add("o NIF está no cartão, depois envio", ["depois envio"], "pt", "label without value")
    # Tracking, booking, flight, invoice, ticket numbers
    add("my booking ref is XK7P2Q for the Ryanair flight, can you check in?", ["XK7P2Q"], "en",
        "airline PNR (printed on tickets)")
    add("Buchungsnummer 4829 1057 33 – Hotel am Hauptbahnhof, bitte Check-in-Zeit rausfinden", ["4829 1057 33"], "de",
        "hotel booking no.")
    add("Flight LH 2041 to Munich tomorrow, is it on time?", ["LH 2041"], "en", "flight number")
    add("vuelo IB3166 Madrid–Lima, ¿cuánto equipaje puedo llevar?", ["IB3166"], "es", "flight number")
    add("Sendungsnummer 00340434161094042557, DHL sagt zugestellt, ist es aber nicht", ["00340434161094042557"], "de",
        "DHL SSCC-shaped tracking no.")
    add("Track RR473124829DE please", ["RR473124829DE"], "en", "UPU S10 tracking", [("upu_s10", "RR473124829DE")])
    add("Rechnungsnr. 2024-11-0457 vom 3.12. – ist die schon bezahlt?", ["2024-11-0457"], "de", "invoice number")
    add("Factuur INV-2025-001873 klopt niet, het bedrag is te hoog", ["INV-2025-001873"], "nl", "invoice number")
    add("Ticket #483920 at the helpdesk, no answer since Monday", ["483920"], "en", "helpdesk ticket")
    add("numero pratica 2025/118734, mi scrivi una mail al comune?", ["2025/118734"], "it", "case number")
    add("Aktenzeichen 3 O 123/24 – was bedeutet das O?", ["3 O 123/24"], "de", "court file number")
    add("Nº de reserva 58219347, hotel en Sevilla del 3 al 7 de mayo", ["58219347"], "es", "hotel booking")
    add("Zoom Meeting ID: 845 2219 7730 — join at 3pm", ["845 2219 7730"], "en", "meeting ID (public in invitations)")
    # Phones, postcodes, dates, prices
    add("Call me on 07700 900518 after six", ["07700 900518"], "en", "Ofcom drama-range mobile")
    add("Tel. +49 30 901820 – das ist die Nummer vom Bürgeramt", ["+49 30 901820"], "de", "public office phone")
    add("mi número es el 612 34 56 78, llámame luego", ["612 34 56 78"], "es", "Spanish mobile")
    add("appelle le 01 99 00 12 34 pour le rendez-vous", ["01 99 00 12 34"], "fr", "ARCEP fiction-range number")
    add("postcode SW1A 1AA — deliver there", ["SW1A 1AA"], "en", "UK postcode")
    add("Adresse: Hauptstr. 5, 80331 München", ["80331"], "de", "German postcode")
    add("Adres: Keizersgracht 12, 1015 CJ Amsterdam", ["1015 CJ"], "nl", "Dutch postcode")
    add("geboren am 14.03.1987 in Graz – brauch ich das für den Antrag?", ["14.03.1987"], "de", "date of birth")
    add("Prezzo 1.249,00 € per 12 rate da 104,08", ["1.249,00"], "it", "price")
    add("IMEI 35-209900-176148-1, the phone was stolen, what do I tell the police?", ["35-209900-176148-1"], "en",
        "IMEI (Luhn), not secret", [("luhn", "352099001761481")])
    add("ISBN 978-3-16-148410-0 – kannst du das Buch finden?", ["978-3-16-148410-0"], "de", "ISBN-13",
        [("gs1", "9783161484100")])
    c = v.luhn_failing("4", 16)
    add(f"Order number {v.group(c, [4, 4, 4, 4])} from the shop, refund pending", [v.group(c, [4, 4, 4, 4])], "en",
        "16-digit order no. failing Luhn", [("luhn_fail", c)])
    add("Versão 4.12.3, commit 9f2c1e7 — já saiu a atualização?", ["9f2c1e7"], "pt", "version and commit hash")
    add("Kenteken GZ-123-X, kan je de APK-datum opzoeken?", ["GZ-123-X"], "nl", "licence plate")
    # Splits whose second message is not a secret
    two = [
        (["what's the password policy?", "at least 12 characters, one digit, no reuse of the last 5"],
         ["at least 12 characters"], "en", "policy text"),
        (["my booking ref:", "XK9P2Q"], ["XK9P2Q"], "en", "booking ref (published on tickets)"),
        (["IBAN?", "I'll send it tonight when I'm home"], ["send it tonight"], "en", "label without value"),
        (["Wie lautet die Hotline?", "0800 330 1000, kostenlos"], ["0800 330 1000"], "de", "phone"),
        (["mi número de pedido:", "ES-4471-2298"], ["ES-4471-2298"], "es", "order number"),
        (["tracking:", "1Z999AA10123456784"], ["1Z999AA10123456784"], "en", "UPS sample tracking"),
        (["wifi name?", "FRITZ!Box 7590 KQ"], ["FRITZ!Box 7590 KQ"], "en", "SSID"),
        (["PIN?", "no idea, I forgot it, that's why I'm asking"], ["I forgot it"], "en", "no value"),
        (["Passwortregeln fürs Portal:", "mind. 10 Zeichen, 1 Großbuchstabe, keine Leerzeichen"], ["mind. 10 Zeichen"],
         "de", "policy text"),
        (["numéro de vol :", "AF 1234, départ 7h40"], ["AF 1234"], "fr", "flight"),
        (["Postleitzahl:", "10115"], ["10115"], "de", "postcode"),
        (["la password?", "è quella sul foglietto attaccato al router"], ["foglietto attaccato al router"], "it",
         "hint, no password"),
        (["referencia de la reserva:", "ABX3K9"], ["ABX3K9"], "es", "booking ref"),
        (["o código?", "ainda não chegou o SMS"], ["ainda não chegou"], "pt", "no code yet"),
        (["wachtwoord:", "hetzelfde als altijd, weet je toch"], ["hetzelfde als altijd"], "nl", "no password"),
        (["my order number:", "4028 1937 5510 2846"], ["4028 1937 5510 2846"], "en", "order no. failing Luhn"),
        (["numero di telefono:", "+39 06 6982 1234"], ["+39 06 6982 1234"], "it", "phone"),
        (["date of birth:", "02/07/1988"], ["02/07/1988"], "en", "date"),
        (["Mon code promo :", "NOEL2025"], ["NOEL2025"], "fr", "public promo code"),
        (["invoice no.", "INV-88213"], ["INV-88213"], "en", "invoice"),
    ]
    for messages, keep, lang, source in two:
        checks = [("luhn_fail", "4028193755102846")] if "4028" in messages[1] else []
        add(messages, keep, lang, "split-shaped look-alike: " + source, checks)
    return out
