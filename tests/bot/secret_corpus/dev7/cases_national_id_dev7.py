"""national_id cases for dev7: personal identity/tax/social/health/passport numbers of many countries, new layouts.

Hand-written messages; values drawn in ids_dev7.py with valid check digits where the format has one.
"""
import ids_dev7 as I
from ids_dev7 import case, digits

K = "national_id"


def regroup(s, sizes):
    """Digits of s re-split into odd groups separated by spaces."""
    d = "".join(ch for ch in s if ch.isalnum())
    out, i = [], 0
    for n in sizes:
        out.append(d[i:i + n])
        i += n
    if i < len(d):
        out.append(d[i:])
    return " ".join(out)


def cases():
    out = []
    v = I.us_ssn()
    out.append(case(K, f"for the lease application they want my social. here: {v}. landlord is Mr Pruitt btw", [v],
                    ["for the lease application", "landlord is Mr Pruitt"], "en", "US SSN, slang label 'social'",
                    [("us_ssn", v)]))
    v = I.us_ssn().replace("-", "")
    out.append(case(K, f"{v} ← that's dad's ssn, the IRS form needs it on line 4", [v],
                    ["dad's ssn", "line 4"], "en", "SSN compact, label after", [("us_ssn", v)]))
    v = I.us_ssn()
    w = regroup(v, [3, 3, 3])
    out.append(case(K, f"Soc sec # for Emma (new hire) {w}", [w], ["Soc sec #", "new hire"], "en",
                    "SSN split 3-3-3", [("us_ssn", w)]))
    v = I.us_itin()
    out.append(case(K, f"my tax id isnt an SSN, its an ITIN: {v}. does turbotax accept that?", [v],
                    ["ITIN", "turbotax"], "en", "US ITIN", [("us_itin", v)]))
    v = I.gb_nino()
    out.append(case(K, f"HMRC rang, they need my NI no. again, it's {v} — can you fill the form while I drive", [v],
                    ["HMRC rang", "NI no."], "en", "UK National Insurance number spaced", [("gb_nino", v)]))
    v = I.gb_nino().replace(" ", "").lower()
    out.append(case(K, f"nat insurance {v} (typed it lowercase sorry)", [v], ["nat insurance"], "en",
                    "NINO lowercase compact", [("gb_nino", v)]))
    v = I.gb_nhs()
    out.append(case(K, f"GP receptionist asked for his NHS number → {v}. Appointment Thursday 9:40", [v],
                    ["NHS number", "Appointment Thursday 9:40"], "en", "UK NHS number", [("gb_nhs", v)]))
    v = I.uk_driving_licence("Okafor", "C", female=True)
    out.append(case(K, f"driving licence no {v} for the car hire, pick up at 10", [v], ["driving licence no",
                    "car hire"], "en", "UK DVLA licence number (format)"))
    v = I.de_steuer_id()
    out.append(case(K, f"Meine Steuer-ID steht auf dem Brief vom Finanzamt, hier abgetippt: {v}", [v],
                    ["Steuer-ID", "Finanzamt"], "de", "Steuer-IdNr compact", [("de_idnr", v)]))
    v = I.de_steuer_id()
    w = regroup(v, [2, 3, 3, 3])
    out.append(case(K, f"can you do my Elster thing, the Steueridentifikationsnummer is {w} I think", [w],
                    ["Elster", "Steueridentifikationsnummer"], "en", "German label in English sentence, 2-3-3-3",
                    [("de_idnr", w)]))
    v = I.de_personalausweis()
    out.append(case(K, f"Ausweisnummer (oben rechts auf dem Perso): {v}", [v], ["Ausweisnummer", "Perso"], "de",
                    "German ID-card document number with ICAO check digit", [("icao", v)]))
    v = I.fr_nir()
    out.append(case(K, f"Mon numéro de sécu : {v} — c'est pour la mutuelle de ton boulot", [v],
                    ["numéro de sécu", "la mutuelle"], "fr", "French NIR spaced", [("fr_nir", v)]))
    v = I.fr_nir().replace(" ", "")
    out.append(case(K, f"Remplis le Cerfa pour moi stp. Nom: Lefèvre, prénom: Inès, NIR {v}, né à Lyon", [v],
                    ["Cerfa", "né à Lyon"], "fr", "NIR in a dictated form", [("fr_nir", v)]))
    v = I.it_codice_fiscale("Esposito", "Marco")
    out.append(case(K, f"codice fiscale di mio padre {v}, serve per la ricetta", [v],
                    ["codice fiscale di mio padre", "la ricetta"], "it", "codice fiscale of a relative",
                    [("it_cf", v)]))
    v = I.it_codice_fiscale("Ferrari", "Chiara", True)
    out.append(case(K, f"{v.lower()} questo è il mio cf, scusa le minuscole", [v.lower()], ["il mio cf"], "it",
                    "codice fiscale lowercase, label after", [("it_cf", v.lower())]))
    v = I.es_dni()
    out.append(case(K, f"pon mi DNI para la reserva del tren: {v}. Gracias guapa", [v], ["para la reserva del tren"],
                    "es", "Spanish DNI", [("es_dni", v)]))
    v = I.es_nie()
    w = f"{v[0]}-{v[1:8]}-{v[8]}"
    out.append(case(K, f"El NIE de mi compañero es {w}, lo necesita la gestoría", [w], ["lo necesita la gestoría"],
                    "es", "NIE with dashes, colleague", [("es_nie", w)]))
    v = I.nl_bsn()
    w = f"{v[:4]}.{v[4:6]}.{v[6:]}"
    out.append(case(K, f"BSN van mijn dochter: {w} (voor de huisarts)", [w], ["BSN van mijn dochter", "huisarts"],
                    "nl", "BSN dotted 4.2.3", [("nl_bsn", w)]))
    v = I.nl_bsn()
    out.append(case(K, f"burgerservicenummer {v} staat op mn rijbewijs achterkant", [v], ["rijbewijs achterkant"],
                    "nl", "BSN, full Dutch label", [("nl_bsn", v)]))
    v = I.pt_nif()
    out.append(case(K, f"qual é o teu contribuinte? preciso pra fatura — ah o meu é {v}", [v],
                    ["contribuinte", "fatura"], "pt", "Portuguese NIF called contribuinte", [("pt_nif", v)]))
    v = I.br_cpf()
    out.append(case(K, f"meu CPF {v} e o da minha esposa te mando depois", [v], ["meu CPF", "minha esposa"], "pt",
                    "Brazilian CPF", [("br_cpf", v)]))
    v = I.br_cpf().replace(".", "").replace("-", "")
    out.append(case(K, f"cpf sem pontos: {v}", [v], ["cpf sem pontos"], "pt", "CPF compact", [("br_cpf", v)]))
    v = I.mx_curp("HEVA", female=True)
    out.append(case(K, f"mi CURP es {v}, me la pide el IMSS para la cita", [v], ["mi CURP", "el IMSS"], "es",
                    "Mexican CURP", [("mx_curp", v)]))
    v = I.in_aadhaar()
    out.append(case(K, f"Aadhaar {v} — mom's, for the bank KYC. Don't forward pls", [v], ["mom's", "bank KYC"], "en",
                    "Aadhaar spaced, relative", [("in_aadhaar", v)]))
    v = I.in_pan("S")
    out.append(case(K, f"PAN card no is {v}, name as per PAN: Ritu Sharma", [v], ["name as per PAN"], "en",
                    "Indian PAN", [("in_pan", v)]))
    v = I.ca_sin()
    out.append(case(K, f"They need my S.I.N. for payroll. {v}. Start date is Monday", [v], ["payroll", "Start date"],
                    "en", "Canadian SIN with dotted label", [("ca_sin", v)]))
    v = I.au_tfn()
    out.append(case(K, f"tax file no. {v} for the super form, employer is Greenway Pty", [v],
                    ["tax file no.", "super form"], "en", "Australian TFN", [("au_tfn", v)]))
    v = I.pl_pesel()
    out.append(case(K, f"I need to book the przychodnia visit for babcia, her PESEL: {v}", [v],
                    ["przychodnia visit for babcia"], "en", "Polish PESEL, Polish words in English",
                    [("pl_pesel", v)]))
    v = I.se_pnr(long=True)
    out.append(case(K, f"mitt personnummer är {v} — need it for the Swedish bank thing", [v],
                    ["Swedish bank thing"], "en", "Swedish personnummer 12-digit, native label",
                    [("se_pnr", v)]))
    v = I.be_nn()
    out.append(case(K, f"Rijksregisternummer: {v}\nNaam: Peeters Lotte\nAdres: Kerkstraat 14, 2000 Antwerpen", [v],
                    ["Rijksregisternummer", "Kerkstraat 14, 2000 Antwerpen"], "nl", "Belgian national number, form",
                    [("be_nn", v)]))
    v = I.be_nn()
    w = "".join(ch for ch in v if ch.isdigit())
    out.append(case(K, f"numéro national {w} (carte d'identité belge), c'est pour l'inscription à la crèche", [w],
                    ["carte d'identité belge", "la crèche"], "fr", "Belgian number compact", [("be_nn", w)]))
    v = I.ch_ahv()
    out.append(case(K, f"AHV-Nr. {v}, steht auch auf der Krankenkassenkarte", [v], ["Krankenkassenkarte"], "de",
                    "Swiss AHV number", [("ch_ahv", v)]))
    v = I.ch_ahv()
    out.append(case(K, f"numéro AVS de Julien: {v}", [v], ["de Julien"], "fr", "Swiss AVS (French)",
                    [("ch_ahv", v)]))
    v = I.at_svnr()
    out.append(case(K, f"Sozialversicherungsnr. {v} (e-card), Termin beim Hautarzt", [v], ["e-card", "Hautarzt"],
                    "de", "Austrian SVNR", [("at_vnr", v)]))
    v = I.ie_pps()
    out.append(case(K, f"PPS no. {v} for the Revenue thing, thx", [v], ["Revenue"], "en", "Irish PPS",
                    [("ie_pps", v)]))
    v = I.dk_cpr()
    out.append(case(K, f"CPR-nummer til Maja: {v} (she's my niece, the school needs it)", [v], ["my niece",
                    "the school needs it"], "en", "Danish CPR of a niece", [("dk_cpr", v)]))
    v = I.fi_hetu()
    out.append(case(K, f"Henkilötunnus {v}, anteeksi — sorry, in English: that's my Finnish ID", [v],
                    ["my Finnish ID"], "en", "Finnish HETU with native label", [("fi_hetu", v)]))
    v = I.no_fnr()
    w = f"{v[:6]} {v[6:]}"
    out.append(case(K, f"fødselsnummer {w} — for NAV", [w], ["for NAV"], "en", "Norwegian fødselsnummer 6+5",
                    [("no_fnr", w)]))
    v = I.cn_ric()
    out.append(case(K, f"身份证号 {v} this is my mother's, for the visa invitation letter", [v],
                    ["my mother's", "visa invitation letter"], "en", "Chinese resident ID, Chinese label",
                    [("cn_ric", v)]))
    v = I.jp_my_number()
    out.append(case(K, f"マイナンバー {v} — the accountant in Osaka asked for it", [v], ["accountant in Osaka"], "en",
                    "Japanese My Number", [("jp_mynumber", v)]))
    v = I.kr_rrn()
    out.append(case(K, f"주민등록번호 {v} is what the Coupang form wants, is it safe??", [v],
                    ["Coupang form", "is it safe"], "en", "Korean RRN", [("kr_rrn", v)]))
    v = I.tr_tckimlik()
    out.append(case(K, f"TC kimlik no: {v} — for the Turkish Airlines miles account", [v],
                    ["Turkish Airlines miles account"], "en", "Turkish TC kimlik", [("tr_tc", v)]))
    v = I.il_teudat_zehut()
    out.append(case(K, f"teudat zehut {v}, mispar for my brother Avi", [v], ["my brother Avi"], "en",
                    "Israeli ID transliterated label", [("il_id", v)]))
    v = I.za_idnr()
    w = f"{v[:6]} {v[6:10]} {v[10:]}"
    out.append(case(K, f"SA ID {w} for the FICA docs, the bank is being painful", [w], ["FICA docs"], "en",
                    "South African ID spaced", [("za_id", w)]))
    v = I.cl_rut()
    out.append(case(K, f"mi RUT es {v}, para la boleta", [v], ["para la boleta"], "es", "Chilean RUT",
                    [("cl_rut", v)]))
    v = I.co_cedula()
    out.append(case(K, f"cédula de ciudadanía {v} de Medellín, a nombre de mi tía Gloria", [v],
                    ["a nombre de mi tía Gloria"], "es", "Colombian cédula (no check digit)"))
    v, c = I.pe_dni_cui()
    out.append(case(K, f"DNI peruano {v}, dígito verificador {c} — es el de mi abuelo para el SIS", [v],
                    ["dígito verificador", "para el SIS"], "es", "Peruvian DNI with separate check digit",
                    []))
    v = I.ro_cnp()
    out.append(case(K, f"CNP-ul meu: {v} — sorry, it's the Romanian personal code, for the courier customs", [v],
                    ["Romanian personal code", "courier customs"], "en", "Romanian CNP", [("ro_cnp", v)]))
    v = I.bg_egn()
    out.append(case(K, f"ЕГН {v} (my wife's) for the insurance", [v], ["my wife's", "for the insurance"], "en",
                    "Bulgarian EGN Cyrillic label", [("bg_egn", v)]))
    v = I.cz_rc()
    out.append(case(K, f"rodné číslo {v} — doktor to potřebuje / the doctor needs it", [v], ["the doctor needs it"],
                    "en", "Czech rodné číslo", [("cz_rc", v)]))
    v = I.ee_isikukood()
    out.append(case(K, f"isikukood {v}, for the e-residency follow-up", [v], ["e-residency follow-up"], "en",
                    "Estonian isikukood", [("ee_ik", v)]))
    v = I.hr_oib()
    out.append(case(K, f"OIB {v} za apartman — the host in Split asked for it", [v], ["the host in Split"], "en",
                    "Croatian OIB", [("hr_oib", v)]))
    v = I.gr_amka()
    out.append(case(K, f"AMKA {v} για το φαρμακείο (pharmacy)", [v], ["pharmacy"], "en", "Greek AMKA",
                    [("gr_amka", v)]))
    v = I.is_kennitala()
    out.append(case(K, f"kennitalan mín er {v}", [v], ["kennitalan mín er"], "en", "Icelandic kennitala",
                    [("is_kt", v)]))
    v = I.ec_ci()
    out.append(case(K, f"número de cédula {v}, Ecuador, para el envío", [v], ["para el envío"], "es",
                    "Ecuadorian cédula", [("ec_ci", v)]))
    v = I.th_pin()
    out.append(case(K, f"Thai ID {v} (บัตรประชาชน) for the condo contract", [v], ["condo contract"], "en",
                    "Thai national ID dashed 1-4-5-2-1", [("th_pin", v)]))
    v = I.nz_ird()
    out.append(case(K, f"IRD number {v} – KiwiSaver form", [v], ["KiwiSaver form"], "en", "NZ IRD",
                    [("nz_ird", v)]))
    # several people / far labels / forms / odd groups
    a, b = I.es_dni(), I.es_dni()
    out.append(case(K, f"Para el check-in del apartamento:\n1) Laura Gómez – {a}\n2) Pablo Ruiz – {b}\nLlegamos a las 22h",
                    [a, b], ["check-in del apartamento", "Llegamos a las 22h"], "es", "two people's DNIs in a list",
                    [("es_dni", a), ("es_dni", b)]))
    a, b = I.pt_nif(), I.pt_nif()
    out.append(case(K, f"nif dele {a}, nif dela {b}. contrato em nome dos dois", [a, b], ["contrato em nome dos dois"],
                    "pt", "two NIFs", [("pt_nif", a), ("pt_nif", b)]))
    v = I.de_steuer_id()
    out.append(case(K, f"Das Finanzamt will für die Erklärung meine Nummer. Steht auf dem Ding von 2019 oben links. "
                       f"Also, du weißt schon welche. {v}", [v], ["Finanzamt", "oben links"], "de",
                    "label far from number, only the office named", [("de_idnr", v)]))
    v = I.fr_nir()
    w = regroup(v, [4, 4, 4, 3])
    out.append(case(K, f"numero de securite sociale (sans accents dsl) {w}", [w], ["sans accents dsl"], "fr",
                    "NIR split in odd 4-4-4-3 groups", [("fr_nir", w)]))
    v = I.it_codice_fiscale("Romano", "Luca")
    out.append(case(K, f"codce fiscle {v} ✅ ok ora mandami il modulo", [v], ["mandami il modulo"], "it",
                    "misspelt label", [("it_cf", v)]))
    v = I.nl_bsn()
    out.append(case(K, f"Naam: S. de Vries\nGeb.datum: 12-03-1988\nsofinummer: {v}\nIBAN: volgt", [v],
                    ["Naam: S. de Vries", "IBAN: volgt"], "nl", "old label sofinummer in pasted form",
                    [("nl_bsn", v)]))
    v = I.pl_pesel()
    w = regroup(v, [6, 5])
    out.append(case(K, f"pesel {w} – to ten z dowodu (from the ID card)", [w], ["from the ID card"], "en",
                    "PESEL split 6+5", [("pl_pesel", w)]))
    v = I.br_cpf()
    out.append(case(K, f"> manda o documento\nCPF do meu filho: {v}", [v], ["manda o documento", "CPF do meu filho"],
                    "pt", "quoted request, son's CPF", [("br_cpf", v)]))
    v = I.se_pnr()
    out.append(case(K, f"personnr {v} för Ella, hon behöver det till skolan — she needs it for school", [v],
                    ["she needs it for school"], "en", "Swedish 10-digit with hyphen, mixed", [("se_pnr", v)]))
    return out
