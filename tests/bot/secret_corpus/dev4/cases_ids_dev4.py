"""Identity, tax, social-security and passport numbers of 30 countries, as people paste them in chat."""
from values_dev4 import case
import id_numbers_dev4 as ids
import values_dev4 as v

K = "national_id"


def national_ids():
    out = []

    def add(messages, secret, keep, lang, source, checks=()):
        out.append(case(K, messages, secret, keep, lang, source, checks))

    # United States
    s = ids.us_ssn()
    add(f"hey can you put my SSN on the W-9 for me? it's {s}", [s], ["W-9"], "en", "SSA SSN format", [("us_ssn", s)])
    s = ids.us_ssn()
    add(f"Social Security Number\n{s}\nDate of hire: 03/14/2022", [s], ["Social Security Number", "Date of hire"], "en",
        "IRS Form W-4 / I-9 field labels", [("us_ssn", s)])
    s = ids.us_ssn()
    add(f"The bank needs my social to open the account, it's {s.replace('-', ' ')} — can you draft the email to them?",
        [s.replace("-", " ")], ["open the account", "draft the email"], "en", "SSA SSN format, spaced", [("us_ssn", s)])
    p = v.digits(9)
    add(f"Renewing my passport online. Old passport no. {p}, issued in 2016. What else do they ask?",
        [p], ["Renewing my passport", "issued in 2016"], "en", "US passport book number (9 digits, State Dept DS-82)")
    # United Kingdom
    n = ids.uk_nino()
    add(f"here's my NI number for the payroll form: {n}", [n], ["payroll form"], "en", "HMRC NINO format", [("uk_nino", n)])
    n = ids.uk_nino().replace(" ", "")
    add(f"{n} is my national insurance no, can you check the HMRC letter says the same?", [n], ["HMRC letter"], "en",
        "HMRC NINO, compact, label after the number", [("uk_nino", n)])
    # Canada
    s = ids.ca_sin()
    f = f"{s[:3]} {s[3:6]} {s[6:]}"
    add(f"here's my SIN for the form: {f}", [f], ["for the form"], "en", "ESDC SIN, Luhn", [("ca_sin", s)])
    s = ids.ca_sin()
    f = f"{s[:3]}-{s[3:6]}-{s[6:]}"
    add(f"Mon NAS c'est le {f}, tu peux remplir la demande de prestation ?", [f], ["remplir la demande"], "fr",
        "ESDC numéro d'assurance sociale, Luhn", [("ca_sin", s)])
    # Spain
    d = ids.es_dni()
    add(f"mi DNI es {d}, ¿me rellenas la solicitud del padrón?", [d], ["solicitud del padrón"], "es", "DNI, mod-23 letter",
        [("es_dni", d)])
    d = ids.es_dni()
    f = f"{int(d[:8]):,}".replace(",", ".") + "-" + d[8]
    add(f"Nombre: Lucía Ferrer Soler\nDNI: {f}\nDomicilio: C/ Mayor 12, 3ºB\nTeléfono: 612 345 678", [f],
        ["Nombre:", "Domicilio:"], "es", "DNI with dots and dash in a filled-in form", [("es_dni", d)])
    n = ids.es_nie()
    add(f"Para el contrato de alquiler me piden el NIE: {n}. ¿Es normal que lo pidan por WhatsApp?", [n],
        ["contrato de alquiler"], "es", "NIE X/Y/Z + mod-23 letter", [("es_nie", n)])
    n = ids.es_nie()
    f = f"{n[0]}-{n[1:8]}-{n[8]}"
    add(f"My Spanish NIE is {f} (I'm a resident in Valencia), need it for the Hacienda appointment", [f],
        ["resident in Valencia", "Hacienda appointment"], "en", "NIE with dashes", [("es_nie", n)])
    # Italy
    c = ids.it_codice_fiscale("RSS", "MRA")
    add(f"il mio codice fiscale è {c}, mi prepari il modulo per il medico di base?", [c], ["medico di base"], "it",
        "codice fiscale (DM 23/12/1976)", [("it_cf", c)])
    c = ids.it_codice_fiscale("BNC", "GLI", female=True)
    add(f"Cognome: Bianchi\nNome: Giulia\nC.F. {c}\nResidenza: Via Po 4, Torino", [c], ["Cognome:", "Residenza:"], "it",
        "codice fiscale in a pasted form", [("it_cf", c)])
    c = ids.it_codice_fiscale("VRD", "LCU")
    add(f"{c} <- questo è il CF di mio figlio, serve per l'iscrizione a scuola", [c], ["iscrizione a scuola"], "it",
        "codice fiscale, label after", [("it_cf", c)])
    # France
    n = ids.fr_nir()
    add(f"mon numéro de sécu : {n}. Tu peux écrire à la CPAM pour le remboursement ?", [n], ["CPAM"], "fr",
        "INSEE NIR with key", [("fr_nir", n)])
    n = ids.fr_nir().replace(" ", "")
    add(f"N° de sécurité sociale {n} — c'est pour la mutuelle de ma femme", [n], ["mutuelle"], "fr", "NIR compact",
        [("fr_nir", n)])
    # Germany
    t = ids.de_steuer_id()
    f = f"{t[:2]} {t[2:5]} {t[5:8]} {t[8:]}"
    add(f"Meine Steuer-ID ist {f}, kannst du das Formular für den Arbeitgeber ausfüllen?", [f], ["Arbeitgeber"], "de",
        "Steuer-IdNr (§139b AO), BZSt letter grouping", [("de_idnr", t)])
    t = ids.de_steuer_id()
    add(f"Identifikationsnummer:\n{t}\n\nSteuerklasse: 1", [t], ["Identifikationsnummer:", "Steuerklasse"], "de",
        "Steuer-IdNr, label on its own line", [("de_idnr", t)])
    a = ids.de_ausweis()
    add(f"Ausweisnummer {a} – brauche ich für die Kontoeröffnung, stimmt das Format so?", [a], ["Kontoeröffnung"], "de",
        "Personalausweis document number with ICAO check digit", [("de_ausweis", a)])
    a = ids.de_ausweis()
    add(f"For the car rental: my German ID card number is {a}, valid until 2031", [a], ["car rental", "valid until 2031"],
        "en", "Personalausweis number with check digit", [("de_ausweis", a)])
    # Netherlands
    b = ids.nl_bsn()
    add(f"mijn BSN is {b}, wil je de aanvraag voor de huurtoeslag invullen?", [b], ["huurtoeslag"], "nl", "BSN elfproef",
        [("nl_bsn", b)])
    b = ids.nl_bsn()
    f = f"{b[:4]}.{b[4:6]}.{b[6:]}"
    add(f"Burgerservicenummer van mijn dochter: {f} (staat op haar paspoort)", [f], ["staat op haar paspoort"], "nl",
        "BSN with dots as printed", [("nl_bsn", b)])
    # Belgium
    r = ids.be_nn()
    add(f"Rijksregisternummer {r}, voor de inschrijving bij de mutualiteit", [r], ["mutualiteit"], "nl",
        "Belgian national number (Rijksregister) mod 97", [("be_nn", r)])
    r = ids.be_nn()
    add(f"Voici mon numéro national: {r}. J'en ai besoin pour itsme ?", [r], ["itsme"], "fr", "Belgian numéro national",
        [("be_nn", r)])
    # Nordics
    p = ids.se_personnummer(long=True)
    add(f"My Swedish personnummer is {p}, the landlord wants it for the contract", [p], ["landlord"], "en",
        "Skatteverket personnummer, 12 digits", [("se_pnr", p)])
    p = ids.se_personnummer()
    add(f"personnummer: {p} — can you fill in the Försäkringskassan form in English for me?", [p],
        ["Försäkringskassan"], "en", "personnummer 10 digits", [("se_pnr", p)])
    n = ids.no_fnr()
    add(f"fødselsnummer {n}, I need it for the NAV application, please translate the form", [n], ["NAV application"],
        "en", "Norwegian fødselsnummer, two mod-11 digits", [("no_fnr", n)])
    c = ids.dk_cpr()
    add(f"Min CPR er {c} — can you write to the kommune that I moved?", [c], ["kommune"], "en", "Danish CPR DDMMYY-SSSS",
        [("dk_cpr", c)])
    h = ids.fi_hetu()
    add(f"henkilötunnus {h} is what Kela asks for, right? Write the reply for me", [h], ["Kela"], "en",
        "Finnish HETU with control character", [("fi_hetu", h)])
    # Poland
    p = ids.pl_pesel()
    add(f"Mój PESEL to {p} – my landlord in Kraków needs it, can you answer him in English?", [p], ["Kraków"], "en",
        "PESEL weights 1-3-7-9", [("pl_pesel", p)])
    p = ids.pl_pesel()
    add(f"Für die Anmeldung: polnische PESEL-Nummer {p}, Staatsangehörigkeit polnisch", [p], ["Anmeldung",
        "Staatsangehörigkeit"], "de", "PESEL in German context", [("pl_pesel", p)])
    # Portugal
    n = ids.pt_nif()
    add(f"o meu NIF é {n}, podes pôr na fatura da Worten?", [n], ["fatura"], "pt", "NIF mod 11", [("pt_nif", n)])
    n = ids.pt_nif()
    f = f"{n[:3]} {n[3:6]} {n[6:]}"
    add(f"Contribuinte n.º {f}\nMorada: Rua das Flores 21, Porto", [f], ["Morada:"], "pt", "NIF spaced in a form",
        [("pt_nif", n)])
    c = ids.pt_cc()
    add(f"Cartão de Cidadão {c}, validade 2029 — é isto que o banco quer?", [c], ["validade 2029"], "pt",
        "Cartão de Cidadão number with check digit", [("pt_cc", c)])
    # Brazil
    c = ids.br_cpf()
    add(f"meu CPF é {c}, preciso pra nota fiscal", [c], ["nota fiscal"], "pt", "CPF, two mod-11 digits", [("br_cpf", c)])
    c = ids.br_cpf()
    d = c.replace(".", "").replace("-", "")
    add(f"CPF {d} - pode cadastrar no site da farmácia pra mim?", [d], ["farmácia"], "pt", "CPF compact", [("br_cpf", c)])
    # India
    a = ids.in_aadhaar()
    add(f"my Aadhaar number is {a}, the KYC form keeps rejecting it, can you check the format?", [a], ["KYC form"], "en",
        "UIDAI Aadhaar, Verhoeff", [("in_aadhaar", a)])
    p = ids.in_pan()
    add(f"PAN: {p}\nName as per PAN: R. Sharma\nDOB: 12/04/1990", [p], ["Name as per PAN"], "en", "Income Tax PAN format",
        [("in_pan", p)])
    # Mexico
    c = ids.mx_curp("GOMA", "NRR")
    add(f"mi CURP es {c}, ¿me ayudas con el trámite del SAT?", [c], ["trámite del SAT"], "es", "RENAPO CURP check digit",
        [("mx_curp", c)])
    c = ids.mx_curp("HELJ", "RRN", female=True)
    add(f"CURP de mi hija: {c} (la necesito para la inscripción)", [c], ["inscripción"], "es", "CURP", [("mx_curp", c)])
    # Argentina
    d = ids.ar_dni()
    add(f"Mi DNI es {d}, lo necesitás para el turno en el hospital?", [d], ["turno en el hospital"], "es",
        "Argentine DNI with dots", [("ar_dni", d)])
    cu = ids.ar_cuil(ids.ar_dni())
    add(f"CUIL {cu} — ¿lo pongo así con guiones en el formulario de ANSES?", [cu], ["ANSES"], "es", "AFIP CUIL mod 11",
        [("ar_cuit", cu)])
    # Chile
    r = ids.cl_rut()
    add(f"mi RUT es {r}, ¿me armas el correo para la isapre?", [r], ["isapre"], "es", "Chilean RUT mod 11", [("cl_rut", r)])
    # South Africa
    z = ids.za_id()
    add(f"SA ID number: {z}. Home Affairs wants it on the form, can you check the rest?", [z], ["Home Affairs"], "en",
        "South African ID, Luhn", [("za_id", z)])
    # Australia
    t = ids.au_tfn()
    add(f"my TFN is {t}, new employer asked for it in the onboarding portal", [t], ["onboarding portal"], "en",
        "ATO TFN weights", [("au_tfn", t)])
    # Japan
    m = ids.jp_my_number()
    add(f"My Number (マイナンバー): {m} — the city office letter asks me to confirm it", [m], ["city office letter"], "en",
        "Japanese Individual Number check digit", [("jp_in", m)])
    # Korea
    r = ids.kr_rrn()
    add(f"Korean resident registration number {r}, the visa office wants it for my wife", [r], ["visa office"], "en",
        "Korean RRN", [("kr_rrn", r)])
    # China
    c = ids.cn_rid()
    add(f"My Chinese ID card number is {c}, can you fill in the hotel registration?", [c], ["hotel registration"], "en",
        "GB 11643-1999 resident ID", [("cn_ric", c)])
    # Turkey
    t = ids.tr_tckimlik()
    add(f"TC kimlik no: {t}. Please write to the consulate that I lost my passport", [t], ["consulate"], "en",
        "T.C. Kimlik No", [("tr_tckimlik", t)])
    # Israel
    i = ids.il_id()
    add(f"Teudat zehut {i} — for the insurance claim", [i], ["insurance claim"], "en", "Israeli ID, Luhn-style",
        [("il_idnr", i)])
    # Ireland, Switzerland, Austria
    p = ids.ie_pps()
    add(f"PPS number {p}, need it for the Revenue myAccount thing", [p], ["myAccount"], "en", "Revenue PPSN",
        [("ie_pps", p)])
    a = ids.ch_ahv()
    add(f"AHV-Nummer: {a}\nKrankenkasse: Helsana\nBitte Formular ausfüllen", [a], ["Krankenkasse", "Formular"], "de",
        "Swiss AHV/AVS 756, EAN-13", [("ch_ahv", a)])
    a = ids.ch_ahv()
    add(f"Il mio numero AVS è {a}, lo metti tu nel modulo della cassa malati?", [a], ["cassa malati"], "it",
        "Swiss AVS number", [("ch_ahv", a)])
    s = ids.at_svnr()
    add(f"Sozialversicherungsnummer {s} (steht auf der e-card), für den Arzttermin", [s], ["e-card", "Arzttermin"], "de",
        "Austrian SVNR", [("at_vnr", s)])
    # Passports and MRZ lines
    l1, l2 = ids.mrz_td3("GBR", "HARRISON", "EMILY ROSE")
    add(f"the scanner didn't work so here's the bottom of my passport page:\n{l1}\n{l2}", [l2], ["bottom of my passport"],
        "en", "ICAO Doc 9303 TD3 MRZ", [("icao_mrz_td3", l2)])
    l1, l2 = ids.mrz_td3("D<<", "MUELLER", "JONAS", sex="M")
    add(f"Kannst du die MRZ prüfen?\n{l1}\n{l2}", [l2], ["MRZ prüfen"], "de", "ICAO TD3 MRZ, German passport",
        [("icao_mrz_td3", l2)])
    l1, l2 = ids.mrz_td3("NLD", "DE<JONG", "SANNE")
    add(f"{l2}\n^ tweede regel van mijn paspoort, klopt die checksum?", [l2], ["tweede regel"], "nl", "ICAO TD3 MRZ line 2",
        [("icao_mrz_td3", l2)])
    p = "".join(v.RNG.choice("0123456789") for _ in range(2)) + "".join(v.RNG.choice("ABCDEFGHJKLMNPRSTUVWXYZ")
                                                                    for _ in range(2)) + v.digits(5)
    add(f"numéro de passeport : {p}, délivré à Lyon en 2019. Tu peux remplir l'ESTA ?", [p], ["ESTA"], "fr",
        "French passport number 2 digits + 2 letters + 5 digits")
    p = v.RNG.choice("YAX") + v.digits(7)
    add(f"número de pasaporte {p} — es para el check-in online de Iberia", [p], ["check-in online"], "es",
        "Spanish passport 3 letters/1 letter + digits (approximate)")
    p = "".join(v.RNG.choice("CFGHJK") for _ in range(1)) + "".join(v.RNG.choice("CFGHJKLMNPRTVWXYZ0123456789") for _ in range(8))
    add(f"Reisepassnummer {p} – Gültig bis 2030, brauche ich für das ESTA-Formular", [p], ["ESTA-Formular"], "de",
        "German passport document number (9 chars)")
    # Longer sentences about why it is needed
    b = ids.nl_bsn()
    add(f"The accountant says he can't file my Dutch return without my burgerservicenummer, which is {b}, and he wants "
        "it by Friday. Can you write him a short reply?", [b], ["by Friday", "short reply"], "en", "BSN in a longer sentence",
        [("nl_bsn", b)])
    t = ids.de_steuer_id()
    add(f"Frag bitte bei der Familienkasse nach, warum das Kindergeld nicht kommt; die Steuer-ID vom Kleinen ist {t} "
        "und die Kindergeldnummer steht im Brief.", [t], ["Familienkasse", "Kindergeldnummer steht im Brief"], "de",
        "Steuer-IdNr of a child in a longer sentence", [("de_idnr", t)])
    n = ids.pt_nif()
    add(f"Olá! Para a declaração de IRS da minha mãe: NIF {n}, ela é reformada. O que falta?", [n], ["declaração de IRS"],
        "pt", "NIF of a relative", [("pt_nif", n)])
    p = ids.pl_pesel()
    add(f"Dzień dobry — sorry, English: PESEL number of my son is {p}, the school in Dublin asks for it", [p],
        ["school in Dublin"], "en", "PESEL of a child", [("pl_pesel", p)])
    d, n = ids.es_dni(), ids.es_nie()
    add(f"Los dos titulares: yo con DNI {d} y mi pareja con NIE {n}. ¿Así está bien para el notario?", [d, n],
        ["dos titulares", "notario"], "es", "DNI + NIE of two people", [("es_dni", d), ("es_nie", n)])
    s = ids.us_ssn()
    add(f"Applicant: Marcus Lee\nDOB: 1988-07-02\nSSN: {s}\nEmployer: Riverside Dental\nAnnual income: $64,000", [s],
        ["Applicant:", "Employer: Riverside Dental", "Annual income"], "en", "loan application form pasted whole",
        [("us_ssn", s)])
    return out
