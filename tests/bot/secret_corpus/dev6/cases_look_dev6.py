"""lookalike cases of dev6: numbers shaped like the secrets of this corpus that must be kept. Written by hand."""
import string

from stdnum.al import nipt
from stdnum.eg import tn as eg_tn
from stdnum.ma import ice
from stdnum.md import idno
from stdnum.mk import edb
from stdnum.py import ruc
from stdnum.rs import pib
from stdnum.ru import inn
from stdnum.tw import ubn
from stdnum.ua import edrpou
from stdnum.ve import rif

from ids_dev6 import (RNG, _draw, ae_emirates_id, ar_cuil, case, digits, eg_nid, gt_cui, hkid, ir_melli, jmbg,
                      kw_civil, kz_iin, md_idnp, pin, ru_snils, sa_id, spoil_digit, sv_dui, tw_id)


def L(message, keep, language, source, checks=()):
    return case("lookalike", message, [], keep, language, source, checks)


def tw_company():
    return _draw(lambda: digits(8), ubn.is_valid)


def ua_company():
    return _draw(lambda: RNG.choice("23") + digits(7), edrpou.is_valid)


def ru_company_inn():
    body = RNG.choice(["77", "78", "50"]) + digits(7)
    return body + inn.calc_company_check_digit(body)


def ve_company():
    body = "J" + digits(8)
    return f"J-{body[1:]}-{rif.calc_check_digit(body)}"


def py_company():
    body = "80" + digits(6)
    return f"{body}-{ruc.calc_check_digit(body)}"


def md_company():
    body = "10" + str(RNG.randint(3, 24)).zfill(2) + digits(8)
    return body + idno.calc_check_digit(body)


def rs_company():
    return _draw(lambda: "1" + digits(8), pib.is_valid)


def mk_company():
    return _draw(lambda: "40" + digits(11), edb.is_valid)


def al_company():
    return _draw(lambda: RNG.choice("KLM") + digits(8) + RNG.choice(string.ascii_uppercase), nipt.is_valid)


def ma_company():
    return _draw(lambda: "00" + digits(13), ice.is_valid)


def eg_company():
    return _draw(lambda: digits(9), eg_tn.is_valid)


def phone_groups(prefix, sizes):
    return prefix + " " + " ".join(digits(n) for n in sizes)


def cases():
    out = []
    # ---- company identifiers of the new countries (public, printed on invoices) ----
    u = tw_company()
    out.append(L(f"please put the supplier's 統一編號 (company tax ID) {u} on the invoice, it's Hsin Yi Trading Co.",
                 [u], "en", "Taiwan company UBN", [("tw_ubn", u)]))
    e = ua_company()
    out.append(L(f"Код ЄДРПОУ компанії: {e} — that's the Kyiv supplier's registration code for the contract header",
                 [e], "en", "Ukraine EDRPOU of a company", [("ua_edrpou", e)]))
    r = ru_company_inn()
    out.append(L(f"ИНН организации {r}, ООО «Северный ветер», put it in the bank details of the invoice", [r], "en",
                 "Russia company INN (10 digits)", [("ru_inn", r)]))
    v = ve_company()
    out.append(L(f"RIF de la empresa: {v} (Distribuidora Los Andes C.A.), ponlo en la cotización", [v], "es",
                 "Venezuela company RIF (J-)", [("ve_rif", v)]))
    p = py_company()
    out.append(L(f"La factura tiene que salir a nombre de Agroganadera Itapúa S.A., RUC {p}", [p], "es",
                 "Paraguay company RUC (80…)", [("py_ruc", p)]))
    m = md_company()
    out.append(L(f"IDNO al firmei: {m} — Moldovan company number of the wine exporter, for the customs form", [m],
                 "en", "Moldova IDNO of a company", [("md_idno", m)]))
    s = rs_company()
    out.append(L(f"PIB dobavljača {s}, firma Vinarija Zlatni Breg — metti questo nella fattura, per favore", [s], "it",
                 "Serbia company PIB", [("rs_pib", s)]))
    k = mk_company()
    out.append(L(f"EDB of the Skopje print shop: {k}. Needed on the purchase order", [k], "en",
                 "North Macedonia company EDB", [("mk_edb", k)]))
    a = al_company()
    out.append(L(f"NIPT i shoqërisë {a} (Tirana Tours shpk) — please add to the booking invoice", [a], "en",
                 "Albania company NIPT", [("al_nipt", a)]))
    i = ma_company()
    out.append(L(f"ICE de la société : {i}. C'est pour le devis du transitaire à Tanger", [i], "fr",
                 "Morocco company ICE (15 digits)", [("ma_ice", i)]))
    g = eg_company()
    out.append(L(f"Tax registration number of the Cairo hotel (company): {g}, for the expense report", [g], "en",
                 "Egypt company tax registration number", [("eg_tn", g)]))
    # ---- id-shaped numbers labelled as something else ----
    t = tw_id()
    out.append(L(f"Order {t} hasn't shipped yet, can you chase the seller?", [t], "en",
                 "Taiwan-ID-shaped order number (valid checksum, label decides)"))
    tf = spoil_digit(tw_id())
    out.append(L(f"reference {tf} on the customs letter — what is that for?", [tf], "en",
                 "Taiwan-ID-shaped reference failing the check", [("tw_id_fail", tf)]))
    h = hkid(paren=False)
    h_bad = h[:-1] + ("0" if h[-1] != "0" else "1")
    out.append(L(f"Parcel tracking ref {h_bad}, the courier said it's at the Kwai Chung depot", [h_bad], "en",
                 "HKID-shaped tracking ref failing the check", [("hk_hkid_fail", h_bad)]))
    kz = spoil_digit(kz_iin())
    out.append(L(f"номер заказа / order number {kz} — it's the furniture from Almaty", [kz], "en",
                 "IIN-shaped order number failing the check", [("kz_iin_fail", kz)]))
    ir = spoil_digit(ir_melli())
    out.append(L(f"Tracking code {ir} for the saffron package from Mashhad", [ir], "en",
                 "kod-melli-shaped tracking code failing the check", [("ir_melli_fail", ir)]))
    d = spoil_digit(sv_dui())
    out.append(L(f"Número de pedido {d}, ¿ya salió del almacén de San Salvador?", [d], "es",
                 "DUI-shaped order number failing the check", [("sv_dui_fail", d)]))
    sn = spoil_digit(ru_snils())
    out.append(L(f"Invoice no. {sn} from the translation agency, please pay by Friday", [sn], "en",
                 "SNILS-shaped invoice number failing the check", [("ru_snils_fail", sn)]))
    j = spoil_digit(jmbg("rs"))
    out.append(L(f"Broj rezervacije {j} — booking number of the apartment in Belgrade, check-in at 2pm", [j], "en",
                 "JMBG-shaped booking number failing the check", [("jmbg_fail", j)]))
    kw = spoil_digit(kw_civil())
    out.append(L(f"Customer reference {kw} on the Zain bill. Is that the account number?", [kw], "en",
                 "Kuwait-civil-ID-shaped customer reference failing the check", [("kw_civil_fail", kw)]))
    ae = spoil_digit(ae_emirates_id())
    out.append(L(f"Shipment {ae} is stuck at Jebel Ali customs, can you draft an email to the forwarder?", [ae], "en",
                 "Emirates-ID-shaped shipment number failing Luhn", [("ae_eid_fail", ae)]))
    sa = spoil_digit(sa_id())
    out.append(L(f"SADAD bill number {sa} for the electricity, pay it from the joint account", [sa], "en",
                 "Saudi-ID-shaped bill number failing Luhn", [("sa_id_fail", sa)]))
    c = spoil_digit(ar_cuil())
    out.append(L(f"El número de trámite de la mudanza es {c}, guardalo", [c], "es",
                 "CUIL-shaped procedure number failing the check", [("ar_cuit_fail", c)]))
    md = spoil_digit(md_idnp())
    out.append(L(f"Numărul comenzii: {md} — the Chișinău bakery order, 40 pastries for Saturday", [md], "en",
                 "IDNP-shaped order number failing the check", [("md_idnp_fail", md)]))
    gc = gt_cui(spaced=False)
    gcf = gc[:8] + str((int(gc[8]) + RNG.randint(1, 9)) % 10) + gc[9:]
    out.append(L(f"No. de guía {gcf} de Cargo Expreso, ¿me ayudás a rastrearlo?", [gcf], "es",
                 "CUI-shaped waybill failing the check", [("gt_cui_fail", gcf)]))
    eg = eg_nid()
    out.append(L(f"Order #{eg} from the Khan el-Khalili shop — the lamp arrived broken, help me write a complaint",
                 [eg], "en", "Egypt-ID-shaped order number (label decides)"))
    # ---- phones, postcodes, bank codes ----
    ph = phone_groups("+971 50", [3, 4])
    out.append(L(f"call the landlord on {ph} if the AC breaks", [ph], "en", "UAE mobile number"))
    ph = phone_groups("+63 917", [3, 4])
    out.append(L(f"Tita Lourdes' number is {ph}, text her the flight details", [ph], "en", "Philippines mobile"))
    ph = "010" + digits(8)
    out.append(L(f"Egyptian mobile of the driver: {ph} (WhatsApp)", [ph], "en",
                 "Egypt mobile, 11 digits like an ID fragment"))
    ph = phone_groups("+7 701", [3, 2, 2])
    out.append(L(f"Номер водителя в Алматы {ph} — the driver's number, call him when we land", [ph], "en",
                 "Kazakhstan mobile"))
    ph = phone_groups("+502", [4, 4])
    out.append(L(f"el teléfono de la tía Chepita en Guate es {ph}", [ph], "es", "Guatemala phone"))
    ph = phone_groups("+503", [4, 4])
    out.append(L(f"Llamá a la agencia al {ph} para confirmar la remesa", [ph], "es", "El Salvador phone"))
    ph = phone_groups("+254 712", [3, 3])
    out.append(L(f"M-Pesa number {ph}, send the 2000 KES there", [ph], "en", "Kenya M-Pesa phone number"))
    ph = "+234 80" + digits(1) + " " + digits(3) + " " + digits(4)
    out.append(L(f"the Lagos office line is {ph}, ask for Chinedu", [ph], "en", "Nigeria phone"))
    ph = phone_groups("+852", [4, 4])
    out.append(L(f"Le numéro de l'hôtel à Hong Kong : {ph}", [ph], "fr", "Hong Kong phone"))
    ph = phone_groups("+886 912", [3, 3])
    out.append(L(f"Taiwanese nummer van de gids: {ph}", [ph], "nl", "Taiwan mobile"))
    pc = f"{RNG.randint(110001, 855999)}"
    out.append(L(f"What's the PIN code for Koramangala? I have {pc} but the courier says it's wrong", [pc], "en",
                 "India PIN code meaning a postal code"))
    pc = f"{RNG.randint(110001, 855999)}"
    out.append(L(f"PIN code: {pc} — that's the postal code for my grandma's address in Pune", [pc], "en",
                 "India PIN code (postal), labelled 'PIN code'"))
    sc = f"{RNG.randint(10, 99)}-{RNG.randint(10, 99)}-{RNG.randint(10, 99)}"
    out.append(L(f"sort code {sc}, account name Okafor Catering Ltd — it's the business account on the invoice", [sc],
                 "en", "UK bank sort code of a business"))
    cp = f"C{RNG.randint(1000, 9999)}AAB"
    out.append(L(f"código postal {cp}, Palermo, Buenos Aires — para el envío", [cp], "es", "Argentina CPA postcode"))
    cp = f"{RNG.randint(10100, 19999)}"
    out.append(L(f"Le code postal à Tunis c'est {cp}? Je dois envoyer un colis", [cp], "fr",
                 "Tunisia-style postcode, word 'code'"))
    # ---- bookings, flights, tickets, meetings, SKUs ----
    tk = "176-" + digits(10)
    out.append(L(f"e-ticket number {tk}, Emirates, can you check if seat selection is free?", [tk], "en",
                 "airline e-ticket number (13 digits)"))
    out.append(L("flight TK1872 lands at 06:40, and the connection PC2108 leaves from gate 214", ["TK1872", "PC2108",
                 "214"], "en", "flight numbers and a gate"))
    mid = f"{digits(3)} {digits(4)} {digits(4)}"
    out.append(L(f"Zoom with the lawyer in Nairobi, Meeting ID: {mid}, tomorrow 10:00", [mid], "en",
                 "Zoom meeting ID (public in the invitation)"))
    bk = "".join(RNG.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
    out.append(L(f"Booking ref {bk} for the Cartagena flight, change it to the 12th", [bk], "en",
                 "airline PNR"))
    sku = f"SKU {RNG.choice('ABEKPRT')}{digits(9)}"
    out.append(L(f"the replacement filter is {sku}, order two please", [sku], "en",
                 "product SKU shaped like Taiwan/Kenya IDs"))
    tr = "RR" + digits(9) + "VN"
    out.append(L(f"Mã vận đơn {tr} — the tracking number from Vietnam Post", [tr], "en", "Vietnam Post tracking"))
    tr = "CP" + digits(9) + "KZ"
    out.append(L(f"трек-номер {tr}, посылка из Казахстана — where is it now?", [tr], "en", "Kazpost tracking"))
    tk = f"{digits(4)}-{digits(4)}-{digits(4)}-{digits(4)}"
    out.append(L(f"PayMaya reference no. {tk} — the refund is still pending", [tk], "en",
                 "16-digit reference shaped like a PhilSys card number"))
    case_no = f"CAS-{digits(6)}-{''.join(RNG.choice('ABCDEFGHJKLMNPQRSTUVWXYZ') for _ in range(4))}"
    out.append(L(f"Número de caso con soporte: {case_no}. Dicen que responden en 48 h", [case_no], "es",
                 "customer-service case number"))
    inv = f"FAC-{RNG.randint(2024, 2025)}-{digits(6)}"
    out.append(L(f"Fatura {inv} da Vodacom Moçambique, já foi paga?", [inv], "pt", "invoice number, Portuguese"))
    ord_ = f"{digits(3)}-{digits(7)}-{digits(7)}"
    out.append(L(f"Bestellnummer {ord_} – das Paket ist nie angekommen, schreib bitte an den Händler", [ord_], "de",
                 "marketplace order number"))
    ord_ = digits(12)
    out.append(L(f"Numero d'ordine {ord_}, la spedizione dalla Moldavia è in ritardo", [ord_], "it",
                 "12-digit order number, shape of KZ IIN/Kuwait civil ID"))
    ord_ = digits(14)
    out.append(L(f"Rastreamento {ord_} — o pedido da loja online angolana", [ord_], "pt",
                 "14-digit tracking, shape of an Egyptian ID"))
    ord_ = f"V-{RNG.randint(10, 30)}.{digits(3)}.{digits(3)}"
    out.append(L(f"Pedido {ord_} de la ferretería, ¿llegó completo?", [ord_], "es",
                 "order number shaped like a Venezuelan cédula"))
    rm = f"{RNG.randint(1, 7)}-{digits(4)}-{digits(4)}"
    out.append(L(f"Expediente {rm} del juzgado de San José, es público, ¿me resumes la sentencia?", [rm], "es",
                 "court file number shaped like a Costa Rican cédula"))
    # ---- documents talked about, no number ----
    out.append(L("what documents do I need for a DNI in Buenos Aires? my passport is 7 years old", ["DNI", "7 years"],
                 "en", "question about a DNI, no number"))
    out.append(L("My Emirates ID expired on 3 March 2025, can I still fly out of DXB?", ["Emirates ID",
                 "3 March 2025"], "en", "ID card expired, date only"))
    out.append(L("mi cédula se venció, ¿la renuevo en la sede de Heredia o en Alajuela?", ["cédula", "Heredia"], "es",
                 "expired cédula, no number"))
    out.append(L("J'ai perdu ma CIN marocaine, il faut combien de temps pour la refaire à Casablanca ? "
                 "On m'a dit 15 jours", ["CIN marocaine", "15 jours"], "fr", "lost CIN, no number"))
    out.append(L("Was kostet eine neue HKID, wenn man sie verloren hat? Ca. 370 HKD?", ["HKID", "370 HKD"], "de",
                 "HKID question, price"))
    out.append(L("Il mio JMBG finisce con 3? Boh, comunque mi serve il certificato di residenza, sportello 12",
                 ["JMBG", "sportello 12"], "it", "JMBG mentioned, no number, small numbers around"))
    out.append(L("kod melli: (still waiting for it, the embassy said 6 weeks)", ["kod melli", "6 weeks"], "en",
                 "label with no value"))
    out.append(L("CCCD: ************123 (masked on the bank app screenshot)", ["************123"], "en",
                 "masked Vietnamese ID, last three digits only"))
    mask = f"784-****-*******-{RNG.randint(0, 9)}"
    out.append(L(f"Emirates ID on the receipt shows {mask}, is that enough for the refund?", [mask], "en",
                 "masked Emirates ID"))
    out.append(L("Het DUI-nummer heeft 9 cijfers toch? Ik wil alleen weten hoe het formulier werkt",
                 ["DUI-nummer", "9 cijfers"], "nl", "question about the DUI format"))
    out.append(L("Quanto tempo ci vuole per avere il NIN in Nigeria? Mio cugino aspetta da 3 mesi",
                 ["NIN", "3 mesi"], "it", "question about NIN"))
    out.append(L("Preciso do NUIT para abrir conta no BCI ou basta o BI? Tenho 2 semanas", ["NUIT", "2 semanas"],
                 "pt", "question about NUIT"))
    # ---- short numbers near code words that are not codes ----
    n = RNG.randint(100, 999)
    out.append(L(f"the code for the discount is SUMMER{n}, it's on the flyer", [f"SUMMER{n}"], "en",
                 "public promo code"))
    out.append(L("the alarm went off at 4:15, the code panel shows error 07", ["4:15", "error 07"], "en",
                 "alarm times and error code"))
    out.append(L("pin 3 of the Raspberry Pi is SDA, and pin 5 is SCL", ["pin 3", "pin 5"], "en",
                 "GPIO pin numbers"))
    out.append(L("la cassaforte è nella stanza 2318 al 23° piano", ["2318"], "it", "hotel room number near 'safe'"))
    out.append(L("Schließfach Nummer 441 im Bahnhof, der Code steht auf dem Bon", ["441"], "de",
                 "locker number, code not given"))
    out.append(L("le digicode a changé, je te l'envoie par SMS ce soir", ["digicode"], "fr",
                 "door code announced for later, no value"))
    out.append(L("o código postal da casa em Maputo é 1100, e o número da porta 2471", ["1100", "2471"], "pt",
                 "postcode and street number"))
    out.append(L("De kluiscode staat op de kaart in de envelop bij de receptie, kamer 305", ["kamer 305"], "nl",
                 "safe code not given, room number"))
    out.append(L(f"my PIN is the same as before, don't worry. Bus 4017 leaves at 18:20", ["4017", "18:20"], "en",
                 "PIN sentence with no PIN, a bus number"))
    return out
