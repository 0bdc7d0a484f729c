"""national_id cases: identity, tax, social-security, residence, passport, ID-card, licence and health numbers."""
import ids_dev5 as I
from id_numbers_dev4 import (br_cpf, de_ausweis, es_dni, es_nie, fr_nir, it_codice_fiscale, mrz_td3, nl_bsn,
                             pl_pesel, pt_nif, tr_tckimlik, us_ssn)
from values_dev4 import case, group


def _sp(s, sizes, sep=" "):
    return group(s, sizes, sep)


def cases():
    out = []

    def add(msgs, secret, keep, lang, source, checks=()):
        out.append(case("national_id", msgs, secret, keep, lang, source, checks))

    # Estonia
    v = I.ee_ik()
    add(f"hi, the clinic in Tartu wants my isikukood before the appointment: {v} (Kadri Saar)", [v],
        ["the clinic in Tartu"], "en", "Estonian personal code (isikukood)", [("ee_ik", v)])
    v = I.ee_ik()
    add(f"Isikukood\n{v}\n\nthat's for my mum's pension form, pls fill it in", [v], ["pension form"], "en",
        "Estonian personal code, label on the line above", [("ee_ik", v)])
    v = I.ee_ik()
    add(f"{_sp(v, [1, 6, 4])} ← isikukood van mijn vrouw Liis, voor de huurovereenkomst", [_sp(v, [1, 6, 4])],
        ["huurovereenkomst"], "nl", "Estonian personal code, spaced, label after", [("ee_ik", v)])
    # Lithuania
    v = I.lt_asmens()
    add(f"Lithuanian asmens kodas: {v}. They need it for the notary on Friday.", [v], ["notary on Friday"], "en",
        "Lithuanian personal code (asmens kodas)", [("lt_asmens", v)])
    v = I.lt_asmens()
    add(f"Für die Anmeldung in Vilnius brauche ich meinen asmens kodas nochmal, hier: {v} – bitte im Formular "
        "eintragen",
        [v], ["Anmeldung in Vilnius"], "de", "Lithuanian personal code in a German request", [("lt_asmens", v)])
    # Latvia
    v = I.lv_pk()
    add(f"personas kods {v} – Jānis Ozols, my landlord asked for it lol", [v], ["my landlord asked"], "en",
        "Latvian personal code, old format with dash", [("lv_pk", v)])
    v = I.lv_pk()
    add(f"Nome: Ilze Kalniņa\nNazionalità: lettone\nCodice personale (personas kods): {v}\nIndirizzo: via Roma 12",
        [v], ["Nazionalità: lettone"], "it", "Latvian personal code inside a pasted Italian form", [("lv_pk", v)])
    # Czech / Slovak
    v = I.cz_rodne()
    add(f"rodné číslo {v}, to je moje – sorry, my Czech birth number for the insurance: {v.replace('/', '')}",
        [v, v.replace('/', '')], ["for the insurance"], "en", "Czech birth number with and without slash",
        [("cz_rc", v)])
    v = I.cz_rodne()
    add(f"Voor de zorgverzekering van mijn schoonvader (Tomáš Dvořák) hebben ze zijn rodné číslo nodig: {v}", [v],
        ["zorgverzekering"], "nl", "Czech birth number of a relative", [("cz_rc", v)])
    v = I.cz_rodne(slovak=True)
    add(f"slovak ID number (rodné číslo) → {v}\nneeded bc the Bratislava office won't process the visa otherwise", [v],
        ["Bratislava office"], "en", "Slovak birth number", [("sk_rc", v)])
    # Romania
    v = I.ro_cnp()
    add(f"CNP-ul meu e {v} — sorry wrong language 😅 my Romanian CNP is {v} for the bank form", [v],
        ["for the bank form"], "en", "Romanian CNP, repeated in one message", [("ro_cnp", v)])
    v = I.ro_cnp()
    add(f"Buongiorno, per la pratica di mia suocera Elena Popescu: CNP {_sp(v, [1, 6, 6])}, nata a Cluj.",
        [_sp(v, [1, 6, 6])], ["nata a Cluj"], "it", "Romanian CNP spaced, relative", [("ro_cnp", v)])
    # Bulgaria
    v = I.bg_egn()
    add(f"EGN: {v}\nName: Petar Ivanov\nPlease copy it into the consulate form exactly", [v],
        ["consulate form"], "en", "Bulgarian EGN in a short form", [("bg_egn", v)])
    v = I.bg_egn()
    add(f"El gestor me pide el EGN búlgaro de mi marido, es {v}. ¿Lo puedes poner en el correo?", [v],
        ["El gestor me pide"], "es", "Bulgarian EGN of a spouse, Spanish", [("bg_egn", v)])
    # Croatia
    v = I.hr_oib()
    add(f"OIB {v} (Ivana Horvat) – za apartman in Split, the host needs it for the tourist tax", [v],
        ["tourist tax"], "en", "Croatian OIB", [("hr_oib", v)])
    v = I.hr_oib()
    add(f"Mon OIB croate, pour le dossier de succession : {v}. Merci de ne pas le perdre !", [v],
        ["dossier de succession"], "fr", "Croatian OIB in French", [("hr_oib", v)])
    # Slovenia
    v = I.si_emso()
    add(f"EMŠO {v}\n(Slovenian personal number – Maja Novak)\nfor the health card renewal", [v],
        ["health card renewal"], "en", "Slovenian EMŠO", [("si_emso", v)])
    v = I.si_emso()
    add(f"emso van mijn dochter: {_sp(v, [7, 2, 4], '-')} , graag invullen bij 'identificatienummer'",
        [_sp(v, [7, 2, 4], '-')], ["identificatienummer"], "nl", "Slovenian EMŠO dashed, child", [("si_emso", v)])
    # Hungary
    v = I.hu_adoazonosito()
    add(f"adóazonosító jel: {v} – that's my Hungarian tax ID, the accountant in Pécs asked", [v],
        ["accountant in Pécs"], "en", "Hungarian tax identification number", [("hu_adoazonosito", v)])
    v = I.hu_adoazonosito()
    add(f"Steuernummer aus Ungarn (adóazonosító) von Frau Kovács Anna: {_sp(v, [4, 3, 3])}", [_sp(v, [4, 3, 3])],
        ["Steuernummer aus Ungarn"], "de", "Hungarian tax ID spaced, German", [("hu_adoazonosito", v)])
    # Greece
    v = I.gr_amka()
    add(f"AMKA {v} για τον γιατρό — sorry, the doctor in Athens needs my AMKA, that's it", [v],
        ["the doctor in Athens"], "en", "Greek social security number (AMKA)", [("gr_amka", v)])
    v = I.gr_amka()
    add(f"Il numero AMKA di papà è {v}, serve per la ricetta elettronica in Grecia", [v],
        ["ricetta elettronica"], "it", "Greek AMKA of a parent, Italian", [("gr_amka", v)])
    # Iceland
    v = I.is_kennitala()
    add(f"kennitala: {v}\nSigríður Jónsdóttir\nfor the car rental in Reykjavík", [v], ["car rental in Reykjavík"],
        "en", "Icelandic kennitala", [("is_kennitala", v)])
    v = I.is_kennitala()
    add(f"A minha kennitala (Islândia) é {v.replace('-', '')} — preciso para abrir a conta", [v.replace('-', '')],
        ["preciso para abrir a conta"], "pt", "Icelandic kennitala without dash, Portuguese",
        [("is_kennitala", v)])
    # Luxembourg
    v = I.lu_matricule()
    add(f"Matricule (numéro d'identification national) : {_sp(v, [4, 2, 2, 5])}\nC'est pour la CNS, merci",
        [_sp(v, [4, 2, 2, 5])], ["C'est pour la CNS"], "fr", "Luxembourg national identification number",
        [("lu_matricule", v)])
    v = I.lu_matricule()
    add(f"my luxembourg social security nr is {v} if the form asks for 'matricule'", [v],
        ["if the form asks for"], "en", "Luxembourg matricule inline", [("lu_matricule", v)])
    # Ecuador
    v = I.ec_ci()
    add(f"Cédula de identidad: {v[:9]}-{v[9]}\nNombre: Andrés Guamán\nMotivo: renovación de pasaporte",
        [f"{v[:9]}-{v[9]}"], ["renovación de pasaporte"], "es", "Ecuadorian cédula in a pasted form",
        [("ec_ci", v)])
    v = I.ec_ci()
    add(f"mi cedula ecuatoriana es la {v} xq el banco pichincha me la pide pa la transferencia", [v],
        ["banco pichincha"], "es", "Ecuadorian cédula, casual spelling", [("ec_ci", v)])
    # Peru
    v = I.pe_cui()
    add(f"DNI peruano {v} (con dígito verificador), a nombre de Rosa Quispe, para el trámite en el consulado",
        [v], ["trámite en el consulado"], "es", "Peruvian DNI/CUI with check digit", [("pe_cui", v)])
    v = I.pe_cui()
    add(f"Peruvian DNI of my nanny: {v.split('-')[0]}-{v.split('-')[1]} — the agency needs it for the contract",
        [v], ["the agency needs it"], "en", "Peruvian DNI of an employee", [("pe_cui", v)])
    # Colombia
    v = I.co_nit()
    add(f"Para la factura electrónica ponga mi NIT personal {v} (persona natural, Camila Rojas)", [v],
        ["factura electrónica"], "es", "Colombian NIT of a natural person", [("co_nit", v)])
    v = I.co_nit()
    add(f"RUT/NIT: {v.replace('.', '')}\nDV incluido. it's mine, not the company's", [v.replace('.', '')],
        ["DV incluido"], "en", "Colombian NIT without dots", [("co_nit", v)])
    # Uruguay
    v = I.uy_ci()
    add(f"Cédula uruguaya: {v} – Martín Pereira. La necesitan en la inmobiliaria.", [v], ["inmobiliaria"], "es",
        "Uruguayan cédula de identidad", [("uy_ci", v)])
    v = I.uy_ci()
    add(f"CI {v.replace('.', '').replace('-', '')} da minha esposa (Uruguai), para o seguro viagem",
        [v.replace('.', '').replace('-', '')], ["seguro viagem"], "pt", "Uruguayan CI compact, Portuguese",
        [("uy_ci", v)])
    # Singapore
    v = I.sg_nric()
    add(f"NRIC {v} — for the condo visitor registration pls", [v], ["condo visitor registration"], "en",
        "Singapore NRIC", [("sg_nric", v)])
    v = I.sg_nric()
    add(f"my helper's employer form asks for MY nric, here: {v.lower()}  (Tan Wei Ling)", [v.lower()],
        ["employer form"], "en", "Singapore NRIC typed lowercase", [("sg_nric", v)])
    # Malaysia
    v = I.my_nric()
    add(f"MyKad no: {v}\nName: Nurul Aisyah binti Ahmad\nPurpose: tenancy agreement", [v],
        ["tenancy agreement"], "en", "Malaysian MyKad number", [("my_nric", v)])
    v = I.my_nric()
    add(f"IC number saya {v.replace('-', '')} – sorry, my Malaysian IC for the Grab driver signup",
        [v.replace('-', '')], ["Grab driver signup"], "en", "Malaysian NRIC compact", [("my_nric", v)])
    # Thailand
    v = I.th_pin()
    add(f"Thai ID card number: {_sp(v, [1, 4, 5, 2, 1], '-')} (Somchai's) — for the work permit",
        [_sp(v, [1, 4, 5, 2, 1], '-')], ["work permit"], "en", "Thai personal identification number dashed",
        [("th_pin", v)])
    v = I.th_pin()
    add(f"Numéro de carte d'identité thaïlandaise de ma belle-mère : {v}. Le notaire le demande.", [v],
        ["Le notaire le demande"], "fr", "Thai PIN of a relative, French", [("th_pin", v)])
    # Indonesia
    v = I.id_nik()
    add(f"NIK (KTP): {v}\nNama: Dewi Lestari\nfor the visa sponsor letter", [v], ["visa sponsor letter"], "en",
        "Indonesian NIK from a KTP card", [("id_nik", v)])
    v = I.id_nik()
    add(f"NIK istri saya {_sp(v, [4, 4, 4, 4])} – my wife's Indonesian ID no. for the school enrolment",
        [_sp(v, [4, 4, 4, 4])], ["school enrolment"], "en", "Indonesian NIK spaced, spouse", [("id_nik", v)])
    # New Zealand
    v = I.nz_ird()
    add(f"IRD number {v[:3]}-{v[3:6]}-{v[6:]} for my KiwiSaver form, cheers", [f"{v[:3]}-{v[3:6]}-{v[6:]}"],
        ["KiwiSaver form"], "en", "New Zealand IRD number", [("nz_ird", v)])
    v = I.nz_ird()
    add(f"Mijn Nieuw-Zeelandse belastingnummer (IRD): {v}. De boekhouder vroeg erom.", [v],
        ["De boekhouder vroeg erom"], "nl", "NZ IRD in Dutch", [("nz_ird", v)])
    # Canada health cards
    v = I.ca_bc_phn()
    add(f"BC PHN {v[:4]} {v[4:7]} {v[7:]} - care card for the walk-in clinic", [f"{v[:4]} {v[4:7]} {v[7:]}"],
        ["walk-in clinic"], "en", "British Columbia Personal Health Number", [("ca_bc_phn", v)])
    v = I.ca_on_hcn()
    add(f"OHIP / health card: {v[:4]}-{v[4:7]}-{v[7:]}-KT\nfor Noah (my son), the dentist needs it",
        [f"{v[:4]}-{v[4:7]}-{v[7:]}"], ["the dentist needs it"], "en",
        "Ontario health card number with version code (Luhn)", [("luhn", v)])
    v = I.ca_on_hcn()
    add(f"Ma carte santé de l'Ontario c'est le {v} (version AB). Tu peux remplir le formulaire ?", [v],
        ["remplir le formulaire"], "fr", "Ontario health card number in French", [("luhn", v)])
    # UK NHS
    v = I.gb_nhs()
    add(f"NHS no. {v[:3]} {v[3:6]} {v[6:]} – Oliver Pratt, DOB on the letter, for the GP registration",
        [f"{v[:3]} {v[3:6]} {v[6:]}"], ["GP registration"], "en", "NHS number", [("gb_nhs", v)])
    v = I.gb_nhs()
    add(f"can you put grandad's NHS number in the care home email? it's {v}", [v], ["care home email"], "en",
        "NHS number of a grandparent", [("gb_nhs", v)])
    # US ITIN
    v = I.us_itin()
    add(f"ITIN: {v} (I don't have an SSN yet), for the W-7 follow-up", [v], ["W-7 follow-up"], "en",
        "US ITIN", [("us_itin", v)])
    # Pakistan
    v = I.pk_cnic()
    add(f"CNIC {v} – Ayesha Khan, for the remittance form from Dubai", [v], ["remittance form"], "en",
        "Pakistani CNIC", [("pk_cnic", v)])
    # Dominican Republic
    v = I.do_cedula()
    add(f"Cédula dominicana: {v[:3]}-{v[3:10]}-{v[10]} (mi papá, Rafael Peña). Es para el envío de dinero.",
        [f"{v[:3]}-{v[3:10]}-{v[10]}"], ["envío de dinero"], "es", "Dominican cédula of a parent",
        [("do_cedula", v)])
    # Belgium BIS
    v = I.be_bis()
    add(f"BIS-nummer {v[:2]}.{v[2:4]}.{v[4:6]}-{v[6:9]}.{v[9:]} — ik ben grensarbeider, voor de sociale zekerheid",
        [f"{v[:2]}.{v[2:4]}.{v[4:6]}-{v[6:9]}.{v[9:]}"], ["grensarbeider"], "nl", "Belgian BIS number",
        [("be_bis", v)])
    # France numéro fiscal
    v = I.fr_numero_fiscal()
    add(f"Numéro fiscal (SPI) : {_sp(v, [2, 2, 3, 3, 3])}\nRevenu fiscal de référence : voir avis ci-joint",
        [_sp(v, [2, 2, 3, 3, 3])], ["Revenu fiscal de référence"], "fr", "French numéro fiscal de référence",
        [("fr_nif", v)])
    v = I.fr_numero_fiscal()
    add(f"j'ai besoin que tu remplisses la déclaration, mon numéro fiscal c {v} et celui de Julien je te "
        "l'envoie après",
        [v], ["remplisses la déclaration"], "fr", "French numéro fiscal, casual", [("fr_nif", v)])
    # Spain NSS
    v = I.es_nss()
    add(f"Nº de afiliación a la Seguridad Social: {v}\nEmpresa: la de siempre", [v],
        ["afiliación a la Seguridad Social"], "es", "Spanish social security affiliation number (NSS)", [("es_nss", v)])
    v = I.es_nss()
    add(f"el NUSS de mi madre es {v.replace('/', '')}, lo pide el centro de salud", [v.replace('/', '')],
        ["centro de salud"], "es", "Spanish NSS compact, parent", [("es_nss", v)])
    # Germany KVNR
    v = I.de_kvnr()
    add(f"Krankenversichertennummer: {v}\n(steht auf der Gesundheitskarte) – für die Online-Rezeptbestellung", [v],
        ["Online-Rezeptbestellung"], "de", "German health insurance number (KVNR)", [("de_kvnr", v)])
    v = I.de_kvnr()
    add(f"Versichertennr. meiner Tochter Lea ist {v}, trag die bitte bei der Kinderarztpraxis ein", [v],
        ["Kinderarztpraxis"], "de", "KVNR of a child", [("de_kvnr", v)])
    # Italy tessera sanitaria
    v = I.it_tessera_team()
    cf = it_codice_fiscale("BRN", "GLI", female=True)
    add(f"Tessera sanitaria di Giulia Bruni\nCodice fiscale: {cf}\nNumero identificativo tessera: {v}",
        [cf, v], ["Tessera sanitaria di"], "it", "Italian health card: codice fiscale and TEAM number",
        [("it_cf", cf), ("luhn", v)])
    # Netherlands ID card / passport document number
    doc = "".join(I.RNG.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2)) + \
        "".join(I.RNG.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(6)) + I.digits(1)
    add(f"documentnummer ID-kaart: {doc}, geldig tot 2031. Voor de check-in bij het hotel moet dat erbij", [doc],
        ["check-in bij het hotel"], "nl", "Dutch ID card document number", [("nl_idkaart", doc)])
    # Passport MRZ
    l1, l2 = mrz_td3("EST", "TAMM", "KATRIN")
    add(f"here's the bottom of my passport for the airline form:\n{l1}\n{l2}", [l2], ["for the airline form"], "en",
        "Estonian passport MRZ (line 2 secret)", [("icao_mrz_td3", l2)])
    l1, l2 = mrz_td3("HRV", "KOVAC", "LUKA", sex="M")
    add(f"Passaporto di Luka (croato), la parte in basso:\n{l1}\n{l2}\ngrazie!", [l2], ["la parte in basso"], "it",
        "Croatian passport MRZ", [("icao_mrz_td3", l2)])
    # German Personalausweis
    v = de_ausweis()
    add(f"Ausweisnummer (oben rechts auf dem Perso): {v} – für die Kontoeröffnung per Video-Ident", [v],
        ["Video-Ident"], "de", "German ID card number", [("de_ausweis", v)])
    # Passport numbers without checksum
    pp = I.RNG.choice("CFGHJK") + "".join(I.RNG.choice("CFGHJKLMNPRTVWXYZ0123456789") for _ in range(8))
    add(f"Reisepassnummer {pp}, gültig bis 03/2032 – bitte bei der Einreiseanmeldung eintragen", [pp],
        ["Einreiseanmeldung"], "de", "German passport number (no check digit claimed)")
    pp = "5" + I.digits(8)
    add(f"passport # {pp} (US) – Emily Carter, needed for the cruise manifest", [pp], ["cruise manifest"], "en",
        "US passport book number (no check digit)")
    # Driving licences (no public checksum)
    dl = "MORGA" + I.digits(6) + "JK9" + "".join(I.RNG.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(2))
    add(f"UK driving licence number: {dl}\nfor the hire car excess insurance", [dl], ["hire car excess"], "en",
        "UK driving licence number (no checksum)")
    pat = "U1" + "".join(I.RNG.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(1)) + I.digits(6) + \
        I.RNG.choice("ABCDEFGHJKLMNPRSTUVWXYZ")
    add(f"numero patente {pat} rilasciata dalla MCTC, mi serve per il noleggio a Lisbona", [pat],
        ["noleggio a Lisbona"], "it", "Italian driving licence number (no checksum)")
    # Long forms with several numbers
    nir = fr_nir()
    vv = I.fr_numero_fiscal()
    add(f"Nom : Lefèvre\nPrénom : Camille\nN° de sécurité sociale : {nir}\nN° fiscal : {vv}\nIBAN : voir RIB joint",
        [nir, vv], ["IBAN : voir RIB joint"], "fr", "French form with NIR and numéro fiscal",
        [("fr_nir", nir), ("fr_nif", vv)])
    a, b = I.ro_cnp(), I.ro_cnp()
    add(f"CNP mama: {a}\nCNP tata: {b}\n(for both travel insurances, same policy)", [a, b],
        ["same policy"], "en", "two Romanian CNPs in one message", [("ro_cnp", a), ("ro_cnp", b)])
    a, b = I.ee_ik(), I.lv_pk()
    add(f"we're moving to Riga: my isikukood {a}, and my husband already has a Latvian personas kods {b}",
        [a, b], ["we're moving to Riga"], "en", "Estonian and Latvian codes together",
        [("ee_ik", a), ("lv_pk", b)])
    a = pl_pesel()
    b = I.lt_asmens()
    add(f"PESEL: {a} / asmens kodas: {b} – mam podwójne obywatelstwo, sorry, dual citizenship, both needed",
        [a, b], ["dual citizenship"], "en", "Polish PESEL and Lithuanian code", [("pl_pesel", a), ("lt_asmens", b)])
    a = es_nie()
    b = I.es_nss()
    add(f"Datos para el contrato:\n- NIE: {a}\n- Seguridad Social: {b}\n- Cuenta: la de siempre", [a, b],
        ["Datos para el contrato"], "es", "Spanish NIE and NSS in a list", [("es_nie", a), ("es_nss", b)])
    a = pt_nif()
    b = br_cpf()
    add(f"NIF português: {a} | CPF (Brasil): {b} — é tudo meu, para o IRS e para a Receita", [a, b],
        ["para o IRS e para a Receita"], "pt", "Portuguese NIF and Brazilian CPF together",
        [("pt_nif", a), ("br_cpf", b)])
    a = nl_bsn()
    b = I.de_kvnr()
    add(f"BSN: {a}\nDuitse verzekeringsnummer: {b}\nIk werk in Aken maar woon in Heerlen", [a, b],
        ["Ik werk in Aken"], "nl", "Dutch BSN and German KVNR (cross-border worker)",
        [("nl_bsn", a), ("de_kvnr", b)])
    # In a sentence about why
    v = I.hr_oib()
    add(f"Die kroatische Behörde will mein OIB, weil ich dort eine Wohnung geerbt habe. Es lautet {v}.", [v],
        ["eine Wohnung geerbt"], "de", "Croatian OIB in a sentence about why", [("hr_oib", v)])
    v = I.bg_egn()
    add(f"Pourquoi ils veulent l'EGN de ma grand-mère ? bref le voici : {_sp(v, [6, 3, 1])}", [_sp(v, [6, 3, 1])],
        ["Pourquoi ils veulent"], "fr", "Bulgarian EGN spaced, French", [("bg_egn", v)])
    v = I.si_emso()
    add(f"L'EMŠO di mio cugino Matej, {v}, serve all'agenzia per il contratto d'affitto a Trieste", [v],
        ["contratto d'affitto"], "it", "Slovenian EMŠO, Italian", [("si_emso", v)])
    v = I.cz_rodne()
    add(f"O número de nascimento checo (rodné číslo) do meu enteado é {v} – é para a escola em Braga", [v],
        ["escola em Braga"], "pt", "Czech birth number, Portuguese", [("cz_rc", v)])
    v = I.is_kennitala()
    add(f"Kennitala von Gudrun: {v} (Island). Wird für die Pferdeversicherung gebraucht 🐴", [v],
        ["Pferdeversicherung"], "de", "Icelandic kennitala, German, emoji", [("is_kennitala", v)])
    v = I.gr_amka()
    add(f"AMKA: {_sp(v, [6, 5])}\nΟνοματεπώνυμο: Νίκος Παπαδόπουλος — that's my dad, for the pharmacy",
        [_sp(v, [6, 5])], ["for the pharmacy"], "en", "Greek AMKA spaced with Greek name", [("gr_amka", v)])
    v = I.th_pin()
    add(f"Número de identidad tailandés: {v}. Lo necesita la embajada para el visado de Nok.", [v],
        ["visado de Nok"], "es", "Thai PIN, Spanish", [("th_pin", v)])
    v = I.sg_nric()
    add(f"NRIC van mijn collega in Singapore (voor de conferentiebadge): {v}", [v], ["conferentiebadge"], "nl",
        "Singapore NRIC of a colleague, Dutch", [("sg_nric", v)])
    v = I.my_nric()
    add(f"Numéro MyKad : {v} — c'est pour le permis de travail de Siti", [v], ["permis de travail"], "fr",
        "Malaysian MyKad, French", [("my_nric", v)])
    v = I.ec_ci()
    add(f"cédula {v}\n← essa é a do meu sogro no Equador, pro seguro saúde", [v], ["seguro saúde"], "pt",
        "Ecuadorian cédula with label after, Portuguese", [("ec_ci", v)])
    v = I.uy_ci()
    add(f"Carta d'identità uruguaiana n. {v}, intestata a Lucía Fernández — per la residenza a Bologna", [v],
        ["residenza a Bologna"], "it", "Uruguayan CI, Italian", [("uy_ci", v)])
    v = I.lu_matricule()
    add(f"Sozialversicherungsnummer Luxemburg: {v}\nArbeitgeber: Bäckerei Weber, Esch", [v],
        ["Arbeitgeber: Bäckerei Weber"], "de", "Luxembourg matricule, German form", [("lu_matricule", v)])
    v = I.pe_cui()
    add(f"DNI: {v.replace('-', '')} (Perú) — é da minha namorada, para a reserva do voo", [v.replace('-', '')],
        ["reserva do voo"], "pt", "Peruvian DNI compact, Portuguese", [("pe_cui", v)])
    v = I.co_nit()
    add(f"ok el NIT es este {v} pero ojo que lo escribí rápido, revisalo", [v], ["lo escribí rápido"], "es",
        "Colombian NIT in a hurried message", [("co_nit", v)])
    v = I.id_nik()
    add(f"mi NIK indonesio (de la KTP) para el visado: {v}", [v], ["para el visado"], "es",
        "Indonesian NIK, Spanish", [("id_nik", v)])
    v = I.nz_ird()
    add(f"IRD# {v[:2]}-{v[2:5]}-{v[5:]} — Aroha Ngata. pls add to the tax agent email", [f"{v[:2]}-{v[2:5]}-{v[5:]}"],
        ["tax agent email"], "en", "NZ IRD dashed 2-3-4", [("nz_ird", v)])
    v = tr_tckimlik()
    add(f"T.C. Kimlik No'su: {v} – my mother-in-law's, the Istanbul hospital insists", [v],
        ["Istanbul hospital"], "en", "Turkish TC Kimlik of a relative", [("tr_tckimlik", v)])
    v = es_dni()
    add(f"DNI {v[:2]}.{v[2:5]}.{v[5:8]}-{v[8]} de mi hija Lucía, para la matrícula del conservatorio",
        [f"{v[:2]}.{v[2:5]}.{v[5:8]}-{v[8]}"], ["matrícula del conservatorio"], "es", "Spanish DNI dotted",
        [("es_dni", v)])
    v = us_ssn()
    add(f"social: {v.replace('-', ' ')}\n(mine, for the mortgage pre-approval)", [v.replace('-', ' ')],
        ["mortgage pre-approval"], "en", "US SSN spaced, short label", [("us_ssn", v)])
    v = I.hu_adoazonosito()
    add(f"Codice fiscale ungherese (adóazonosító jel) di mio marito: {v}", [v], ["di mio marito"], "it",
        "Hungarian tax ID, Italian", [("hu_adoazonosito", v)])
    v = I.pk_cnic()
    add(f"{v.replace('-', '')} is my CNIC, the courier wants it for the customs clearance", [v.replace('-', '')],
        ["customs clearance"], "en", "Pakistani CNIC compact, label after", [("pk_cnic", v)])
    v = I.gb_nhs()
    add(f"Bitte für die Reiseversicherung: NHS-Nummer meines Mannes (Brite) {v[:3]}-{v[3:6]}-{v[6:]}",
        [f"{v[:3]}-{v[3:6]}-{v[6:]}"], ["Reiseversicherung"], "de", "NHS number dashed, German",
        [("gb_nhs", v)])
    v = I.ca_bc_phn()
    add(f"PHN: {v}\nMSP coverage for Ava (daughter) – the school trip form", [v], ["school trip form"], "en",
        "BC PHN of a child", [("ca_bc_phn", v)])
    v = I.us_itin()
    add(f"Mi ITIN es {v.replace('-', '')}, lo necesito en la declaración de impuestos de este año",
        [v.replace('-', '')], ["declaración de impuestos"], "es", "US ITIN compact, Spanish", [("us_itin", v)])
    v = I.do_cedula()
    add(f"cedula: {v} (RD) pa la remesa de mi hermana", [v], ["la remesa de mi hermana"], "es",
        "Dominican cédula compact, casual", [("do_cedula", v)])
    v = I.lt_asmens()
    add(f"A.k. {v}\nVardas: Rūta Petrauskienė\n→ for the Lithuanian embassy appointment", [v],
        ["Lithuanian embassy appointment"], "en", "Lithuanian personal code abbreviated label A.k.",
        [("lt_asmens", v)])
    v = I.sg_nric()
    add(f"Il mio FIN/NRIC di Singapore è {v}, serve alla banca per il KYC", [v], ["per il KYC"], "it",
        "Singapore NRIC, Italian", [("sg_nric", v)])
    return out
