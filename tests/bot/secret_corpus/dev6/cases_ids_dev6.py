"""national_id cases of dev6: identity, tax, social-security, residence and health numbers of countries no earlier
corpus used. Each message written by hand for this corpus; values drawn by ids_dev6.py at generation."""
from ids_dev6 import (RNG, ad_nrt, ae_emirates_id, al_nid, ar_cuil, ar_dni, bd_nid, case, cr_cedula, cr_dimex,
                      cu_ni, eg_nid, ge_pn, gh_card, gh_tin, gt_cui, gt_nit, hkid, ir_melli, jmbg, ke_pin, kw_civil,
                      kz_iin, lk_nic, ma_cin, md_idnp, mt_id, mu_nid, mz_nuit, ng_bvn, ng_nin, ni_cedula, ph_philsys,
                      ph_sss, ph_tin, py_ruc, ru_inn, ru_snils, sa_id, sv_dui, sv_nit, tw_id, ua_rntrc, ve_cedula,
                      ve_rif_person, vn_cccd, vn_mst)


def N(messages, secret, keep, language, source, checks=()):
    return case("national_id", messages, secret, keep, language, source, checks)


def _dots(n):
    return f"{int(n):,}".replace(",", ".")


def cases():
    out = []
    # ---------------- Argentina ----------------
    d = ar_dni()
    out.append(N(f"Che, anotame el DNI de mi vieja para el turno del médico: {_dots(d)}. Se llama Nélida Ferraro",
                 [_dots(d)], ["DNI", "turno del médico"], "es", "Argentina DNI (7-8 digits, dotted)"))
    c = ar_cuil()
    out.append(N(f"mi CUIL es {c}, lo necesitan para el alta en la obra social", [c], ["CUIL", "obra social"], "es",
                 "Argentina CUIL (mod 11)", [("ar_cuit", c)]))
    d2 = ar_dni()
    c2 = ar_cuil(d2)
    out.append(N(f"Para el formulario de ANSES:\nApellido y nombre: Quiroga, Maite\nDNI: {d2}\nCUIL: {c2.replace('-', '')}\n"
                 "Domicilio: Av. Rivadavia 4410, CABA", [d2, c2.replace('-', '')], ["ANSES", "Av. Rivadavia 4410"],
                 "es", "Argentina DNI + CUIL in a pasted form", [("ar_cuit", c2.replace('-', ''))]))
    c3 = ar_cuil(prefix="27")
    out.append(N(f"Minha colega argentina precisa abrir conta aqui, o CUIL dela é {c3} e o passaporte ainda está em "
                 "renovação. Que documentos o banco pede?", [c3], ["CUIL", "passaporte"], "pt",
                 "Argentina CUIL of a colleague, Portuguese message", [("ar_cuit", c3)]))
    # ---------------- Venezuela ----------------
    v = ve_cedula()
    out.append(N(f"Cédula de identidad V-{_dots(v)}, a nombre de Yusmary Briceño. Pásala al correo del consulado "
                 "porfa", [_dots(v)], ["Cédula de identidad", "consulado"], "es", "Venezuela cédula (V- prefix, dotted)"))
    r = ve_rif_person()
    out.append(N(f"el RIF personal mío es {r} por si te lo piden para la factura", [r], ["RIF personal", "factura"],
                 "es", "Venezuela RIF of a natural person (V)", [("ve_rif", r)]))
    v2 = ve_cedula()
    out.append(N(f"my brother-in-law is Venezuelan, cedula number {v2}, can you check if he needs a visa for Lisbon?",
                 [v2], ["cedula number", "visa for Lisbon"], "en", "Venezuela cédula, English, no separators"))
    # ---------------- Costa Rica ----------------
    cr = cr_cedula()
    out.append(N(f"Ocupo que me ayude con la cita de la Caja, mi cédula es {cr}", [cr], ["cédula", "la Caja"], "es",
                 "Costa Rica cédula de persona física", [("cr_cpf", cr)]))
    cr2 = cr_cedula().replace("-", " ")
    out.append(N(f"número de cédula {cr2} (Rosibel Chacón Mora), fecha de nacimiento 3 de marzo", [cr2],
                 ["número de cédula", "Rosibel Chacón Mora"], "es", "Costa Rica cédula, spaced", [("cr_cpf", cr2)]))
    dm = cr_dimex()
    out.append(N(f"I live in San José as a resident, my DIMEX is {dm}. The bank wants it on the letter to the landlord",
                 [dm], ["DIMEX", "landlord"], "en", "Costa Rica DIMEX (cédula de residencia)", [("cr_dimex", dm)]))
    # ---------------- Guatemala ----------------
    g = gt_cui()
    out.append(N(f"Mi DPI es {g}, lo pide la aseguradora para el reclamo del carro", [g], ["DPI", "aseguradora"],
                 "es", "Guatemala DPI/CUI (13 digits, spaced 4-5-4)", [("gt_cui", g)]))
    g2 = gt_cui(spaced=False)
    out.append(N(f"CUI de mi esposa: {g2}\nel mío te lo mando luego", [g2], ["CUI de mi esposa"], "es",
                 "Guatemala CUI compact", [("gt_cui", g2)]))
    gn = gt_nit()
    out.append(N(f"pon en la factura mi NIT {gn} y a nombre de Edgar Xicará, no consumidor final", [gn],
                 ["NIT", "consumidor final"], "es", "Guatemala NIT of a person (mod 11)", [("gt_nit", gn)]))
    # ---------------- El Salvador ----------------
    du = sv_dui()
    out.append(N(f"DUI {du} — es el de mi abuela, Doña Tránsito, para la remesa", [du], ["DUI", "remesa"], "es",
                 "El Salvador DUI (8 digits + check)", [("sv_dui", du)]))
    du2 = sv_dui()
    out.append(N(f"Can you fill in the Western Union form? Recipient Marvin Ayala, ID type: DUI, number {du2.replace('-', '')}",
                 [du2.replace('-', '')], ["Western Union", "ID type: DUI"], "en", "El Salvador DUI compact, English",
                 [("sv_dui", du2.replace('-', ''))]))
    sn = sv_nit()
    out.append(N(f"el NIT mío es {sn}, el viejo, todavía no lo homologué con el DUI", [sn], ["NIT", "homologué"],
                 "es", "El Salvador NIT (14 digits)", [("sv_nit", sn)]))
    # ---------------- Nicaragua / Panama / Bolivia / Paraguay / Cuba / Honduras ----------------
    nc = ni_cedula()
    out.append(N(f"mi cédula nica es {nc}, ¿me ayudás a llenar la solicitud de residencia en Costa Rica?", [nc],
                 ["cédula nica", "solicitud de residencia"], "es", "Nicaragua cédula (check letter mod 23)",
                 [("ni_cedula", nc)]))
    pa = f"8-{RNG.randint(700, 999)}-{RNG.randint(100, 2499)}"
    out.append(N(f"Cédula panameña {pa}. Necesito renovar la licencia antes del viernes, ¿qué llevo?", [pa],
                 ["Cédula panameña", "licencia"], "es", "Panama cédula (province-tomo-asiento)"))
    pe = f"PE-{RNG.randint(1, 19)}-{RNG.randint(100, 2999)}"
    out.append(N(f"my daughter was born in Panama to foreign parents, her cedula is {pe}, do I put it on the school "
                 "enrolment?", [pe], ["cedula", "school"], "en", "Panama cédula PE- (born to foreigners)"))
    bo = f"{RNG.randint(3000000, 9999999)} {RNG.choice(['LP', 'SC', 'CB', 'OR'])}"
    out.append(N(f"Carnet de identidad: {bo}\nNombre: Wara Mamani Quispe\nes para la inscripción en la universidad",
                 [bo], ["Carnet de identidad", "Wara Mamani Quispe"], "es", "Bolivia CI with department extension"))
    pr = py_ruc()
    out.append(N(f"mi RUC es {pr}, emitime la factura a ese número nomás", [pr], ["RUC", "factura"], "es",
                 "Paraguay RUC of a person (cédula + check digit)", [("py_ruc", pr)]))
    ci = str(RNG.randint(1500000, 6999999))
    out.append(N(f"Cédula paraguaya n° {_dots(ci)} — é do meu marido, Osvaldo Benítez, para o cadastro na clínica",
                 [_dots(ci)], ["Cédula paraguaya", "cadastro na clínica"], "pt", "Paraguay cédula, Portuguese message"))
    cu = cu_ni()
    out.append(N(f"El carnet de identidad de mi tía en La Habana es {cu}, lo necesito para mandarle el paquete",
                 [cu], ["carnet de identidad", "paquete"], "es", "Cuba número de identidad (11 digits, birth date)",
                 [("cu_ni", cu)]))
    hn = f"0801-{RNG.randint(1965, 2003)}-{RNG.randint(1000, 29999):05d}"
    out.append(N(f"número de identidad {hn}, Honduras. Es para el contrato de alquiler", [hn],
                 ["número de identidad", "contrato de alquiler"], "es", "Honduras DNI (0801-year-serial)"))
    # ---------------- Philippines ----------------
    ps = ph_philsys()
    out.append(N(f"pls fill the visa form for my wife, her PhilSys card number is {ps} and her maiden name is Dizon",
                 [ps], ["PhilSys card number", "visa form"], "en", "Philippines PhilSys card number (PCN, 16 digits)"))
    pt_ = ph_tin()
    out.append(N(f"TIN ko: {pt_} — for the BIR form 1902, thanks!", [pt_], ["TIN ko", "BIR form 1902"], "en",
                 "Philippines TIN (9 digits + branch 000)"))
    ss = ph_sss()
    out.append(N(f"SSS number ni lola {ss}, need to check her pension status online. Her name is Corazon Manalo.",
                 [ss], ["SSS number", "pension"], "en", "Philippines SSS number"))
    ss2 = ph_sss().replace("-", "")
    out.append(N(f"Bonjour, mon mari est philippin, son numéro SSS est {ss2}, la caisse de retraite française le demande "
                 "pour la totalisation des trimestres", [ss2], ["numéro SSS", "caisse de retraite"], "fr",
                 "Philippines SSS number, French message"))
    # ---------------- Vietnam ----------------
    vc = vn_cccd()
    out.append(N(f"số CCCD của em là {vc} ạ — sorry, in English: my citizen ID for the hotel check-in is the one above",
                 [vc], ["CCCD", "hotel check-in"], "en", "Vietnam CCCD (12 digits), mixed Vietnamese/English"))
    vc2 = vn_cccd()
    out.append(N(f"Mijn schoonmoeder komt uit Vietnam, haar ID-nummer (căn cước) is {vc2}. Moet dat op de "
                 "garantverklaring?", [vc2], ["căn cước", "garantverklaring"], "nl", "Vietnam CCCD, Dutch message"))
    vm = vn_mst()
    out.append(N(f"mã số thuế cá nhân: {vm}\nthat's my personal tax code, put it on the invoice request please",
                 [vm], ["mã số thuế cá nhân", "personal tax code"], "en", "Vietnam personal tax code (MST)",
                 [("vn_mst", vm)]))
    # ---------------- Taiwan ----------------
    t = tw_id()
    out.append(N(f"My Taiwan ID is {t}, the HSR ticket site wants it for the discount", [t], ["Taiwan ID", "discount"],
                 "en", "Taiwan national ID (letter + 9 digits, checksum)", [("tw_id", t)]))
    t2 = tw_id()
    out.append(N(f"身分證字號 {t2} - that's my mum's, she needs the clinic appointment on Thursday", [t2],
                 ["身分證字號", "clinic appointment"], "en", "Taiwan ID with Chinese label", [("tw_id", t2)]))
    t3 = tw_id()
    out.append(N(f"Ik vul het formulier voor de uitwisseling in. Studente: Lin Yu-ting, Taiwanees identiteitsnummer "
                 f"{t3}, geboren 1999", [t3], ["Taiwanees identiteitsnummer", "uitwisseling"], "nl",
                 "Taiwan ID, Dutch message", [("tw_id", t3)]))
    # ---------------- Hong Kong ----------------
    h = hkid()
    out.append(N(f"fill the visa form for my wife, her HKID is {h}, passport to follow", [h], ["HKID", "visa form"],
                 "en", "Hong Kong HKID with check character in brackets", [("hk_hkid", h)]))
    h2 = hkid(paren=False)
    out.append(N(f"hkid {h2.lower()} (no brackets sorry) for the insurance claim", [h2.lower()],
                 ["insurance claim"], "en", "HKID lowercase, no brackets"))
    h3 = hkid()
    out.append(N(f"Pour la réservation, Mme Chan Wing-yee, carte d'identité de Hong Kong {h3}", [h3],
                 ["carte d'identité de Hong Kong", "réservation"], "fr", "HKID, French message", [("hk_hkid", h3)]))
    # ---------------- Egypt ----------------
    e = eg_nid()
    out.append(N(f"الرقم القومي / national ID: {e} — it's for the bank transfer to my cousin in Alexandria", [e],
                 ["national ID", "bank transfer"], "en", "Egypt national ID (14 digits)", [("eg_nid_format", e)]))
    e2 = eg_nid()
    out.append(N(f"Mon numéro national égyptien est le {e2}, l'ambassade le demande sur le formulaire", [e2],
                 ["numéro national égyptien", "ambassade"], "fr", "Egypt national ID, French", [("eg_nid_format", e2)]))
    e3 = eg_nid()
    out.append(N(f"ok so for Ahmed's work permit: nationality Egyptian, national number {e3[:7]} {e3[7:]}, passport "
                 "expires 2027", [f"{e3[:7]} {e3[7:]}"], ["work permit", "national number"], "en",
                 "Egypt national ID split by a space", [("eg_nid_format", f"{e3[:7]} {e3[7:]}")]))
    # ---------------- Morocco / Tunisia ----------------
    m = ma_cin()
    out.append(N(f"Voici mon numéro CIN : {m}. C'est pour l'ouverture du compte chez CIH", [m], ["numéro CIN", "CIH"],
                 "fr", "Morocco CIN (letters + digits)"))
    m2 = ma_cin()
    out.append(N(f"ma femme Salma Bennani, CNIE n° {m2}, elle voyage avec moi le 14", [m2], ["CNIE", "Salma Bennani"],
                 "fr", "Morocco CNIE of a spouse"))
    m3 = ma_cin()
    out.append(N(f"tengo que renovar el NIE y me piden el número de mi carné marroquí: {m3}. ¿Qué más necesito?", [m3],
                 ["carné marroquí", "renovar el NIE"], "es", "Morocco CIN, Spanish message"))
    tn = str(RNG.randint(0, 19999999)).zfill(8)
    out.append(N(f"CIN tunisienne {tn} délivrée à Sfax, c'est pour l'attestation de l'employeur", [tn],
                 ["CIN tunisienne", "attestation"], "fr", "Tunisia CIN (8 digits)"))
    # ---------------- Nigeria / Ghana / Kenya ----------------
    nn, bv0 = ng_nin(), ng_bvn()
    out.append(N(f"NIN: {nn}\nBVN: {bv0}\nabeg help me fill the loan app with these", [nn, bv0], ["NIN:", "loan app"],
                 "en", "Nigeria NIN (11 digits) and BVN in a pasted form"))
    bv = ng_bvn()
    out.append(N(f"my bvn is {bv} the bank app keeps asking", [bv], ["bvn", "bank app"], "en",
                 "Nigeria BVN lowercase label"))
    gc = gh_card()
    out.append(N(f"As on my Ghana card: {gc}. Use that for the SIM registration please", [gc],
                 ["Ghana card", "SIM registration"], "en", "Ghana Card PIN (GHA-…)"))
    gt_ = gh_tin()
    out.append(N(f"My old GRA TIN was {gt_} before they moved us to the Ghana Card number", [gt_],
                 ["GRA TIN", "Ghana Card number"], "en", "Ghana TIN of an individual (P00…)", [("gh_tin", gt_)]))
    kp = ke_pin()
    out.append(N(f"KRA PIN {kp} - for the landlord's tax receipt. Jina ni Wanjiru Kamau", [kp],
                 ["KRA PIN", "tax receipt"], "en", "Kenya KRA PIN of an individual (A…)", [("ke_pin", kp)]))
    ke = str(RNG.randint(20000000, 39999999))
    out.append(N(f"Kenyan ID no. {ke}, Otieno Ochieng, DOB 12/04/1988 — please draft the tenancy agreement", [ke],
                 ["Kenyan ID no.", "tenancy agreement"], "en", "Kenya national ID (8 digits)"))
    # ---------------- Gulf ----------------
    ae = ae_emirates_id()
    out.append(N(f"my Emirates ID is {ae}, can you put it in the DEWA move-in form", [ae], ["Emirates ID", "DEWA"], "en",
                 "UAE Emirates ID (784-…, Luhn)", [("ae_eid", ae)]))
    ae2 = ae_emirates_id(dashed=False)
    out.append(N(f"Emirates ID mijn man: {ae2}. Hij heeft het nodig voor de huurovereenkomst in Dubai", [ae2],
                 ["Emirates ID", "huurovereenkomst"], "nl", "Emirates ID compact, Dutch", [("ae_eid", ae2)]))
    ae3 = ae_emirates_id()
    out.append(N(f"Numéro d'identité émirien {ae3} — c'est pour le visa de ma sœur", [ae3],
                 ["Numéro d'identité émirien", "visa"], "fr", "Emirates ID, French", [("ae_eid", ae3)]))
    sa = sa_id(resident=True)
    out.append(N(f"iqama number {sa}, expiry next Ramadan, my sponsor needs it for the exit re-entry", [sa],
                 ["iqama number", "exit re-entry"], "en", "Saudi iqama (starts 2, Luhn)", [("sa_id", sa)]))
    sa2 = sa_id()
    out.append(N(f"Saudi national ID of my client Mr. Al-Harbi: {sa2} — draft the power of attorney in English", [sa2],
                 ["Saudi national ID", "power of attorney"], "en", "Saudi national ID (starts 1, Luhn)",
                 [("sa_id", sa2)]))
    kw = kw_civil()
    out.append(N(f"civil ID {kw}\nthat's mine, Kuwait, for the school registration of the kids", [kw],
                 ["civil ID", "school registration"], "en", "Kuwait civil ID (12 digits, check digit)",
                 [("kw_civil", kw)]))
    kw2 = kw_civil()
    out.append(N(f"Il numero della civil ID kuwaitiana di mio padre è {kw2}, serve per la pratica della pensione",
                 [kw2], ["civil ID kuwaitiana", "pensione"], "it", "Kuwait civil ID, Italian", [("kw_civil", kw2)]))
    # ---------------- Iran ----------------
    ir = ir_melli()
    out.append(N(f"kod melli: {ir} (mine). Ticket for Tehran on the 3rd please", [ir], ["kod melli", "Tehran"], "en",
                 "Iran kod melli (10 digits, mod 11)", [("ir_melli", ir)]))
    ir2 = ir_melli()
    out.append(N(f"Meine Frau ist Iranerin, ihre nationale Nummer (code melli) lautet {ir2[:3]}-{ir2[3:9]}-{ir2[9]}. "
                 "Braucht die Ausländerbehörde die?", [f"{ir2[:3]}-{ir2[3:9]}-{ir2[9]}"],
                 ["code melli", "Ausländerbehörde"], "de", "Iran kod melli dashed 3-6-1, German",
                 [("ir_melli", f"{ir2[:3]}-{ir2[3:9]}-{ir2[9]}")]))
    # ---------------- South Asia ----------------
    bd = bd_nid()
    out.append(N(f"Bangladesh NID {bd} — brother's, for the remittance via bKash", [bd], ["Bangladesh NID", "bKash"],
                 "en", "Bangladesh NID (10 or 17 digits)"))
    lk = lk_nic(new=False)
    out.append(N(f"my NIC is {lk}, the old one. Do I need the new 12 digit one for the passport?", [lk],
                 ["NIC", "passport"], "en", "Sri Lanka old NIC (9 digits + V/X)", [("lk_nic_format", lk)]))
    lk2 = lk_nic(new=True)
    out.append(N(f"NIC (new): {lk2}\nName: Tharushi Perera\nfor the Dialog connection transfer", [lk2],
                 ["NIC (new)", "Tharushi Perera"], "en", "Sri Lanka new NIC (12 digits)", [("lk_nic_format", lk2)]))
    # ---------------- Russia / Ukraine / Kazakhstan / Georgia / Moldova ----------------
    ri = ru_inn()
    out.append(N(f"мой ИНН {ri} — sorry, that's my Russian tax number (INN), the accountant wants it", [ri],
                 ["ИНН", "accountant"], "en", "Russia personal INN (12 digits)", [("ru_inn", ri)]))
    sn_ = ru_snils()
    out.append(N(f"СНИЛС {sn_}, это для госуслуг — put it on the pension transfer request", [sn_],
                 ["СНИЛС", "pension transfer"], "en", "Russia SNILS (11 digits, control number)",
                 [("ru_snils", sn_)]))
    sn2 = ru_snils().replace("-", "").replace(" ", "")
    out.append(N(f"Meine Schwiegermutter hat nur die russische Rentenversicherungsnummer, SNILS {sn2}. Reicht das für "
                 "die Krankenkasse?", [sn2], ["SNILS", "Krankenkasse"], "de", "Russia SNILS compact, German",
                 [("ru_snils", sn2)]))
    ua = ua_rntrc()
    out.append(N(f"РНОКПП (ідентифікаційний код): {ua}\nPlease use it for my Ukrainian pension paperwork", [ua],
                 ["РНОКПП", "pension paperwork"], "en", "Ukraine RNOKPP (10 digits)", [("ua_rntrc", ua)]))
    ua2 = ua_rntrc()
    out.append(N(f"Mijn Oekraïense buurvrouw Olena vroeg me haar belastingnummer in te vullen: {ua2}. Waar moet dat op "
                 "het formulier van de gemeente?", [ua2], ["belastingnummer", "gemeente"], "nl",
                 "Ukraine RNOKPP of a neighbour, Dutch", [("ua_rntrc", ua2)]))
    ua3 = ua_rntrc()
    out.append(N(f"Il codice fiscale ucraino di Dmytro è {ua3}, lo metti nel contratto di lavoro?", [ua3],
                 ["codice fiscale ucraino", "contratto di lavoro"], "it", "Ukraine RNOKPP, Italian",
                 [("ua_rntrc", ua3)]))
    kz = kz_iin()
    out.append(N(f"ИИН {kz}. It's my IIN from Kazakhstan, for the Kaspi transfer", [kz], ["IIN", "Kaspi"], "en",
                 "Kazakhstan IIN (12 digits, birth date, check digit)", [("kz_iin", kz)]))
    kz2 = kz_iin()
    out.append(N(f"Para el visado de estudiante: Aigerim Nurlanovna, IIN kazajo {kz2}, pasaporte en trámite", [kz2],
                 ["IIN kazajo", "visado de estudiante"], "es", "Kazakhstan IIN, Spanish", [("kz_iin", kz2)]))
    ge = ge_pn()
    out.append(N(f"Georgian personal number {ge} (Nino Beridze) for the hotel registration in Tbilisi", [ge],
                 ["Georgian personal number", "hotel registration"], "en", "Georgia personal number (11 digits)"))
    md = md_idnp()
    out.append(N(f"IDNP-ul meu este {md}. I need it on the Moldovan consulate appointment form", [md],
                 ["IDNP", "consulate appointment"], "en", "Moldova IDNP (13 digits, 7-3-1 check)", [("md_idnp", md)]))
    md2 = md_idnp()
    out.append(N(f"Codice personale moldavo (IDNP) della badante: {md2} — serve per l'assunzione all'INPS", [md2],
                 ["IDNP", "INPS"], "it", "Moldova IDNP of a carer, Italian", [("md_idnp", md2)]))
    # ---------------- Balkans ----------------
    j = jmbg("rs")
    out.append(N(f"moj JMBG je {j}, treba za ugovor — sorry, my Serbian personal number for the rental contract",
                 [j], ["JMBG", "rental contract"], "en", "Serbia JMBG (13 digits, mod 11)", [("jmbg", j)]))
    j2 = jmbg("mk")
    out.append(N(f"EMBG: {j2}\nIme: Elena Stojanovska\nthat's for the Skopje flight booking, she's a minor so it's "
                 "needed", [j2], ["EMBG:", "Elena Stojanovska"], "en", "North Macedonia EMBG", [("jmbg", j2)]))
    j3 = jmbg("me")
    out.append(N(f"Die Personalausweisnummer eines Ausländers? Mein Kollege aus Montenegro hat nur die JMBG {j3}. "
                 "Geht die fürs Formular?", [j3], ["JMBG", "Formular"], "de", "Montenegro JMBG, German",
                 [("jmbg", j3)]))
    j4 = jmbg("ba")
    out.append(N(f"Jedinstveni matični broj: {j4} (Bosna). Per il permesso di soggiorno di Amra serve questo?", [j4],
                 ["Jedinstveni matični broj", "permesso di soggiorno"], "it", "Bosnia JMBG, Italian", [("jmbg", j4)]))
    an = al_nid()
    out.append(N(f"Numri personal: {an}\nmy Albanian ID number for the car rental in Tirana", [an],
                 ["Numri personal", "car rental"], "en", "Albania personal number (letter + 8 digits + letter)"))
    # ---------------- Malta / Cyprus / Andorra / Liechtenstein / Monaco ----------------
    mt = mt_id()
    out.append(N(f"ID card no. {mt} (Malta) for the Identità appointment, thanks", [mt], ["ID card no.", "Identità"],
                 "en", "Malta ID card (digits + letter)"))
    cy = str(RNG.randint(700000, 1299999)).zfill(7)
    out.append(N(f"Cyprus ID card number {cy} — that's Andreas's, he's coming to the wedding", [cy],
                 ["Cyprus ID card number", "wedding"], "en", "Cyprus ID card number"))
    ad = ad_nrt()
    out.append(N(f"Mi NRT es {ad}, ¿lo pones en la declaración del IRPF andorrano?", [ad], ["NRT", "IRPF"], "es",
                 "Andorra NRT of a resident natural person (F-)", [("ad_nrt", ad)]))
    pa_ = str(RNG.randint(100000, 999999))
    out.append(N(f"Pas le passeport : pour le bail, c'est mon numéro de permis de résidence en Andorre, le {pa_}",
                 [pa_], ["permis de résidence", "bail"], "fr", "Andorra residence permit number"))
    li = str(RNG.randint(1000000, 2999999))
    out.append(N(f"Meine PEID lautet {li} (Liechtenstein), bitte für die Steuererklärung übernehmen", [li],
                 ["PEID", "Steuererklärung"], "de", "Liechtenstein PEID of a person"))
    mc = f"{RNG.randint(10000, 99999)}"
    out.append(N(f"Carte de séjour monégasque n° MC-{mc}, au nom de Giulia Rinaldi, pour le dossier de la crèche",
                 [f"MC-{mc}"], ["Carte de séjour monégasque", "Giulia Rinaldi"], "fr", "Monaco residence card number"))
    # ---------------- Mauritius / Mozambique / Angola ----------------
    mu = mu_nid("R")
    out.append(N(f"Mon numéro NIC mauricien : {mu}. Il faut le mettre sur la demande de prêt ?", [mu],
                 ["NIC mauricien", "demande de prêt"], "fr", "Mauritius national ID (letter + 12 digits + check)",
                 [("mu_nid", mu)]))
    mu2 = mu_nid("P")
    out.append(N(f"National identity card: {mu2[0]} {mu2[1:7]} {mu2[7:13]} {mu2[13]} — my husband's, for the MCB form",
                 [f"{mu2[0]} {mu2[1:7]} {mu2[7:13]} {mu2[13]}"], ["National identity card", "MCB form"], "en",
                 "Mauritius national ID spaced", [("mu_nid", f"{mu2[0]} {mu2[1:7]} {mu2[7:13]} {mu2[13]}")]))
    mz = mz_nuit()
    out.append(N(f"O meu NUIT é {mz}, preciso dele na declaração para a empresa em Maputo", [mz],
                 ["NUIT", "Maputo"], "pt", "Mozambique NUIT of a person (9 digits)", [("mz_nuit", mz)]))
    bi = f"{RNG.randint(0, 9999999):09d}{RNG.choice(['LA', 'BA', 'HO', 'UE'])}{RNG.randint(10, 60):03d}"
    out.append(N(f"BI angolano da minha cunhada: {bi}. Ela chega a Lisboa dia 9 e precisa marcar no SEF", [bi],
                 ["BI angolano", "SEF"], "pt", "Angola bilhete de identidade (9 digits + 2 letters + 3 digits)"))
    # ---------------- more variety: several people, typos, label far away, no label ----------------
    t4, h4 = tw_id(), hkid()
    out.append(N(f"booking for 2: Chen Wei-lun (Taiwan ID {t4}) and Wong Ka-ho (HKID {h4}). Window seats if possible",
                 [t4, h4], ["Taiwan ID", "HKID", "Window seats"], "en", "two IDs of two people in one message",
                 [("tw_id", t4), ("hk_hkid", h4)]))
    ae4, sa4 = ae_emirates_id(), sa_id(resident=True)
    out.append(N(f"Wife's Emirates ID: {ae4}\nMy iqama: {sa4}\nwe need both on the family visit visa", [ae4, sa4],
                 ["Emirates ID", "iqama", "family visit visa"], "en", "Emirates ID + iqama",
                 [("ae_eid", ae4), ("sa_id", sa4)]))
    d5, d6 = sv_dui(), sv_dui()
    out.append(N(f"Los DUI de los dos: papá {d5} y mamá {d6}. Es para el trámite de la casa", [d5, d6],
                 ["Los DUI de los dos", "trámite de la casa"], "es", "two DUIs", [("sv_dui", d5), ("sv_dui", d6)]))
    cr3 = cr_cedula()
    out.append(N(f"mi cedual es {cr3}", [cr3], ["cedual"], "es", "Costa Rica cédula, typo in label",
                 [("cr_cpf", cr3)]))
    g3 = gt_cui()
    out.append(N(f"Ok vamos con la solicitud del pasaporte. Necesito que revises si mi DPI sigue vigente, lo saqué en "
                 f"2016 en Quetzaltenango y me dijeron que ahora lo piden para todo. Mi número: {g3}", [g3],
                 ["DPI", "Quetzaltenango"], "es", "Guatemala DPI, label far from number", [("gt_cui", g3)]))
    kz3 = kz_iin()
    out.append(N(f"{kz3} this is the number on my Kazakh ID card, under the photo", [kz3], ["Kazakh ID card"], "en",
                 "Kazakhstan IIN before its label", [("kz_iin", kz3)]))
    e4 = eg_nid()
    out.append(N(f"Natinal ID nummer van mijn vader (Egypte): {e4}", [e4], ["Natinal ID nummer"], "nl",
                 "Egypt national ID, typo in label, Dutch", [("eg_nid_format", e4)]))
    ir3 = ir_melli()
    out.append(N(f"for the embassy form, under 'national identification code' write {ir3}", [ir3],
                 ["national identification code", "embassy form"], "en", "Iran kod melli, form field wording",
                 [("ir_melli", ir3)]))
    ri2 = ru_inn()
    out.append(N(f"Preciso do INN russo do Sergei no contrato: {ri2}. O resto dos dados já te mandei", [ri2],
                 ["INN russo", "contrato"], "pt", "Russia INN, Portuguese", [("ru_inn", ri2)]))
    vr = ve_rif_person()
    out.append(N(f"rif: {vr.replace('-', '')}", [vr.replace('-', '')], ["rif:"], "es",
                 "Venezuela RIF compact, bare", [("ve_rif", vr.replace('-', ''))]))
    pr2 = py_ruc()
    out.append(N(f"Olá! Sou paraguaia e moro em Foz. Meu RUC {pr2} serve para emitir nota fiscal do lado de lá?",
                 [pr2], ["RUC", "nota fiscal"], "pt", "Paraguay RUC, Portuguese", [("py_ruc", pr2)]))
    nc2 = ni_cedula()
    out.append(N(f"Cédula: {nc2.replace('-', '')}\nNombre: Ligia Altamirano\nDirección: Barrio Monseñor Lezcano, Managua",
                 [nc2.replace('-', '')], ["Ligia Altamirano", "Managua"], "es", "Nicaragua cédula compact, form",
                 [("ni_cedula", nc2.replace('-', ''))]))
    ps2 = ph_philsys().replace("-", " ")
    out.append(N(f"Ich helfe meiner philippinischen Pflegekraft beim Antrag. Ihre PhilSys-Nummer: {ps2}", [ps2],
                 ["PhilSys-Nummer", "Pflegekraft"], "de", "Philippines PhilSys, spaced, German"))
    h5 = hkid()
    out.append(N(f"Le numéro de ma carte HK, c'est {h5}, sans espace. On en a besoin pour l'assurance voyage ?", [h5],
                 ["carte HK", "assurance voyage"], "fr", "HKID, casual French label", [("hk_hkid", h5)]))
    t5 = tw_id()
    out.append(N(f"Il mio compagno è taiwanese, numero della carta d'identità {t5}. Va bene per prenotare il traghetto?",
                 [t5], ["carta d'identità", "traghetto"], "it", "Taiwan ID, Italian", [("tw_id", t5)]))
    mz2 = mz_nuit().replace(" ", "")
    out.append(N(f"NUIT {mz2} — é o da Dona Amélia Cossa, ela vai receber o reembolso", [mz2],
                 ["NUIT", "reembolso"], "pt", "Mozambique NUIT compact", [("mz_nuit", mz2)]))
    cu2 = cu_ni()
    out.append(N(f"Para a procuração: Yanet Pérez, cubana, carnê de identidade nº {cu2}", [cu2],
                 ["carnê de identidade", "procuração"], "pt", "Cuba NI, Portuguese", [("cu_ni", cu2)]))
    kp2 = ke_pin()
    out.append(N(f"hi, the freight agent wants my PIN number from KRA, it's {kp2.lower()}", [kp2.lower()],
                 ["freight agent", "KRA"], "en", "Kenya KRA PIN lowercase", [("ke_pin", kp2.lower())]))
    sa3 = sa_id()
    out.append(N(f"Rijbewijs aanvragen in Riyad: mijn Saoedisch ID-nummer is {sa3}, welk formulier?", [sa3],
                 ["Saoedisch ID-nummer", "Rijbewijs"], "nl", "Saudi national ID, Dutch", [("sa_id", sa3)]))
    j5 = jmbg("rs")
    out.append(N(f"{j5[:7]} {j5[7:]} ← il mio JMBG, per la banca di Novi Sad", [f"{j5[:7]} {j5[7:]}"],
                 ["il mio JMBG", "banca di Novi Sad"], "it", "Serbia JMBG spaced, label after (arrow)", [("jmbg", f"{j5[:7]} {j5[7:]}")]))
    lk3 = lk_nic(new=False)
    out.append(N(f"Sri Lankan NIC of the driver: {lk3.lower()} — add him to the insurance", [lk3.lower()],
                 ["Sri Lankan NIC", "insurance"], "en", "Sri Lanka old NIC lowercase v", [("lk_nic_format", lk3.lower())]))
    gn2 = gt_nit()
    out.append(N(f"NIT personal {gn2.replace('-', '')} (sin guion) para la factura del taller", [gn2.replace('-', '')],
                 ["NIT personal", "factura del taller"], "es", "Guatemala NIT compact", [("gt_nit", gn2.replace('-', ''))]))
    kw3 = kw_civil()
    out.append(N(f"Kuwait civil id: {kw3[:4]} {kw3[4:8]} {kw3[8:]}", [f"{kw3[:4]} {kw3[4:8]} {kw3[8:]}"],
                 ["Kuwait civil id"], "en", "Kuwait civil ID spaced 4-4-4",
                 [("kw_civil", f"{kw3[:4]} {kw3[4:8]} {kw3[8:]}")]))
    ua4 = ua_rntrc()
    out.append(N(f"ідентифікаційний номер {ua4} — Ma mère est réfugiée ukrainienne, la CAF demande ce numéro", [ua4],
                 ["CAF", "réfugiée ukrainienne"], "fr", "Ukraine RNOKPP, French", [("ua_rntrc", ua4)]))
    md3 = md_idnp()
    out.append(N(f"cod personal {md3}, Republica Moldova — para a matrícula do meu filho na escola", [md3],
                 ["cod personal", "matrícula"], "pt", "Moldova IDNP, Portuguese", [("md_idnp", md3)]))
    c4 = ar_cuil()
    out.append(N(f"mandale a la contadora: cuil {c4.replace('-', ' ')}", [c4.replace('-', ' ')], ["contadora"], "es",
                 "Argentina CUIL spaced, lowercase label", [("ar_cuit", c4.replace('-', ' '))]))
    sn3 = sv_nit()
    out.append(N(f"NIT de Roxana (El Salvador): {sn3.replace('-', '')}", [sn3.replace('-', '')], ["NIT de Roxana"],
                 "es", "El Salvador NIT compact", [("sv_nit", sn3.replace('-', ''))]))
    vc3 = vn_cccd()
    out.append(N(f"Thẻ căn cước: {vc3} — pour l'inscription de ma nièce à la fac de Lyon", [vc3],
                 ["Thẻ căn cước", "fac de Lyon"], "fr", "Vietnam CCCD, French"))
    nn2 = ng_nin()
    out.append(N(f"Ho bisogno di aiuto col modulo dell'ambasciata: il NIN nigeriano di mia moglie è {nn2}", [nn2],
                 ["NIN nigeriano", "ambasciata"], "it", "Nigeria NIN, Italian"))
    gc2 = gh_card()
    out.append(N(f"Ghanakaart-nummer {gc2.replace('-', '')} van Kwame, voor de inschrijving", [gc2.replace('-', '')],
                 ["Ghanakaart-nummer", "inschrijving"], "nl", "Ghana Card compact, Dutch"))
    return out
