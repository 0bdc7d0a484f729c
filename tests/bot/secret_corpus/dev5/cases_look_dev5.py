"""lookalike cases next to identity numbers, splits and PINs: they must survive untouched."""
import ids_dev5 as I
from id_numbers_dev4 import br_cpf, nl_bsn, pl_pesel
from values_dev4 import case, luhn_number, spoil


def cases():
    out = []

    def add(msgs, keep, lang, source, checks=()):
        out.append(case("lookalike", msgs, [], keep, lang, source, checks))

    def bad(make):
        """An ID-shaped number with its check digit changed, so it fails (check_dev5.py verifies the failure)."""
        return I.spoil_digit(make())

    # ---- ID-shaped numbers failing their checksum
    v = bad(I.ee_ik)
    add(f"Order number {v} — the parcel still hasn't arrived in Tallinn", [v], "en",
        "order number shaped like an isikukood, check digit fails", [("ee_ik_fail", v)])
    v = bad(I.ro_cnp)
    add(f"Numărul de client / customer no. {v}, please quote it when you call the helpline", [v], "en",
        "customer number shaped like a CNP, fails", [("ro_cnp_fail", v)])
    v = bad(I.hr_oib)
    add(f"Broj računa / invoice no. {v} due on the 15th", [v], "en", "invoice number shaped like an OIB, fails",
        [("hr_oib_fail", v)])
    v = bad(I.bg_egn)
    add(f"Ticketnummer {v} – der Support meldet sich morgen", [v], "de", "ticket number shaped like an EGN",
        [("bg_egn_fail", v)])
    v = bad(I.lt_asmens)
    add(f"Numéro de suivi {v}, livraison prévue jeudi", [v], "fr", "tracking number shaped like an asmens kodas",
        [("lt_asmens_fail", v)])
    v = bad(I.si_emso)
    add(f"Número de pedido: {v} (devolución aceptada)", [v], "es", "order number shaped like an EMŠO",
        [("si_emso_fail", v)])
    v = bad(I.gr_amka)
    add(f"Prenotazione n. {v} confermata per 2 persone", [v], "it", "booking number shaped like an AMKA",
        [("gr_amka_fail", v)])
    v = bad(I.th_pin)
    add(f"Referência do pagamento {v} — Multibanco, entidade ao lado", [v], "pt",
        "payment reference shaped like a Thai PIN", [("th_pin_fail", v)])
    v = bad(I.gb_nhs)
    add(f"klantnummer {v}, graag vermelden bij betaling", [v], "nl", "customer number shaped like an NHS number",
        [("gb_nhs_fail", v)])
    v = bad(I.ec_ci)
    add(f"Factura N° {v} emitida el martes", [v], "es", "invoice number shaped like an Ecuadorian cédula",
        [("ec_ci_fail", v)])
    v = bad(I.nz_ird)
    add(f"Job number {v} for the plumber, he said to text it", [v], "en", "job number shaped like an IRD number",
        [("nz_ird_fail", v)])
    v = I.spoil_digit(I.is_kennitala(), -2)
    add(f"Reservation code {v.replace('-', '')} at the guesthouse, check-in after 3pm", [v.replace('-', '')], "en",
        "reservation number shaped like a kennitala", [("is_kennitala_fail", v)])
    v = bad(I.ca_bc_phn)
    add(f"Claim # {v} – the insurer says 5 to 7 business days", [v], "en",
        "claim number shaped like a BC PHN", [("ca_bc_phn_fail", v)])
    v = bad(I.hu_adoazonosito)
    add(f"Bestellnummer {v}, Rücksendung bis Ende des Monats", [v], "de",
        "order number shaped like an adóazonosító jel", [("hu_adoazonosito_fail", v)])
    v = spoil(nl_bsn())
    add(f"Zaaknummer {v} bij de gemeente, over de parkeervergunning", [v], "nl",
        "case number shaped like a BSN, 11-test fails", [("nl_bsn_fail", v)])
    v = spoil(pl_pesel())
    add(f"Numer zamówienia / order ID {v} – the sofa arrives Monday", [v], "en",
        "order number shaped like a PESEL", [("pl_pesel_fail", v)])
    v = spoil(br_cpf())
    add(f"Protocolo de atendimento: {v}", [v], "pt", "protocol number formatted like a CPF, fails",
        [("br_cpf_fail", v)])
    v = I.uy_ci()
    v = v[:-1] + str((int(v[-1]) + 3) % 10)
    add(f"Expediente {v} del juzgado, audiencia el 12", [v], "es", "court file number shaped like a Uruguayan CI",
        [("uy_ci_fail", v)])
    v = I.sg_nric()
    v = v[:-1] + ("A" if v[-1] != "A" else "B")
    add(f"Parcel ref {v} – collect at the POPStation", [v], "en", "parcel reference shaped like an NRIC, letter fails",
        [("sg_nric_fail", v)])
    v = I.de_kvnr()
    v = v[:-1] + str((int(v[-1]) + 4) % 10)
    add(f"Kundennummer {v} (Stadtwerke), Abschlag 84 €", [v], "de", "customer number shaped like a KVNR, fails",
        [("de_kvnr_fail", v)])
    # ---- specimen, voided and masked numbers
    add("The sample passport in the guide shows document no. SPECI2014 – is that the format they want?", ["SPECI2014"],
        "en", "Dutch specimen passport document number (public)")
    add("Auf dem Musterausweis von Erika Mustermann steht T22000129 – sieht meine Nummer auch so aus?", ["T22000129"],
        "de", "German specimen ID card number (public, Mustermann)")
    tail = "..." + I.digits(4)
    add(f"My CNP ends in {tail}, is that enough for them to find the file?", [tail], "en",
        "masked identity number: last digits only")
    last4 = I.digits(4)
    add(f"kaart eindigend op {last4} is geblokkeerd, nieuwe komt per post", [last4], "nl",
        "last four digits of a card (printed on receipts)")
    add("NIE: X-XXXX-XXX-L (lo tapé en la foto, ya te lo paso en persona)", ["X-XXXX-XXX-L"], "es",
        "masked NIE")
    add("Codice fiscale: RSSMRA**********, il resto te lo detto a voce", ["RSSMRA**********"], "it",
        "masked codice fiscale")
    add("CVV: ***  — I never send the real one by chat", ["CVV: ***"], "en", "masked CVV")
    # ---- company identifiers
    v = "1" + I.digits(7)
    add(f"Registrikood {v} is the company's number, it's on every invoice from them", [v], "en",
        "Estonian company registry code")
    from stdnum.co import nit
    c = I._draw(lambda: "9" + I.digits(8) + "-" + I.digits(1), nit.is_valid)
    add(f"NIT de la empresa: {c} (aparece en todas las facturas)", [c], "es", "Colombian company NIT on invoices",
        [("co_nit", c)])
    uen = f"20{I.digits(7)}K"
    add(f"UEN {uen} — that's the shop's business registration, printed on the receipt", [uen], "en",
        "Singapore UEN of a business")
    v = "RO" + I.digits(8)
    add(f"CUI firmă {v} – il codice IVA del fornitore rumeno", [v], "it", "Romanian company VAT code")
    v = "CZ" + "2" + I.digits(7)
    add(f"IČO/DIČ des Lieferanten: {v}", [v], "de", "Czech company VAT number")
    # ---- "PIN?" and policy questions
    add(["PIN?", "forgot it, I'll call the bank tomorrow"], ["forgot it"], "en", "split look-alike: no PIN given")
    add("what's your CVC policy — do you store it after the first payment?", ["CVC policy"], "en",
        "question about CVC handling")
    add(["Qual é o código do portão?", "não sei, pergunta à vizinha"], ["pergunta à vizinha"], "pt",
        "split look-alike: no code given")
    add(["Mot de passe du wifi ?", "c'est écrit sous la box, regarde"], ["écrit sous la box"], "fr",
        "split look-alike: password location, not the value")
    add(["Steuer-ID?", "die steht auf dem Brief vom Finanzamt, hab ihn nicht hier"], ["Brief vom Finanzamt"], "de",
        "split look-alike: where the tax ID is")
    add(["pin della carta?", "è la stessa di sempre, la sai"], ["la stessa di sempre"], "it",
        "split look-alike: 'the same as always'")
    add(["wat is je BSN?", "waarom wil je dat weten? eerst bellen"], ["eerst bellen"], "nl",
        "split look-alike: refusal")
    add(["código de seguridad de la tarjeta:", "uy no, eso no se manda por chat 😅"], ["eso no se manda por chat"],
        "es", "split look-alike: refusal to send a CVC")
    add(["ok my IBAN is", "actually I'll send it by email later"], ["send it by email later"], "en",
        "split look-alike: IBAN promised, not given")
    add("How many digits is a Slovenian EMŠO? 13, right?", ["13, right?"], "en", "question about an ID format")
    # ---- 3-4 digit numbers that are not codes
    room = f"Room {I.RNG.randint(1, 9)}{I.digits(2)}"
    add(f"{room} at the Ibis, breakfast from 7", [room], "en", "hotel room number")
    r = str(I.RNG.randint(2, 9)) + I.digits(3)
    add(f"Zimmer {r}, 4. Stock – der Aufzug ist rechts", [r], "de", "4-digit room number")
    price = f"€{I.RNG.randint(100, 899)}"
    add(f"The jacket was {price} but there's 30% off", [price], "en", "a price")
    y = str(I.RNG.randint(1921, 1950))
    add(f"Mi abuela nació en {y} en Valparaíso", [y], "es", "a birth year")
    f = "LH" + str(I.RNG.randint(1000, 1999))
    add(f"Vol {f} retardé, on arrive vers 23h40", [f, "23h40"], "fr", "flight number and time")
    qty = f"{I.RNG.randint(120, 480)} pezzi"
    add(f"Ho ordinato {qty} per la fiera, arrivano lunedì", [qty], "it", "a quantity")
    e = I.digits(4)
    add(f"Liga para o ramal {e} da contabilidade", [e], "pt", "phone extension")
    b = str(I.RNG.randint(100, 399))
    add(f"neem bus {b} richting Centraal, uitstappen bij het museum", [b], "nl", "bus line")
    pc = f"1{I.RNG.randint(1, 23):02d}0"
    add(f"Postleitzahl {pc} Wien, Hausnummer 12", [pc], "de", "Austrian postcode (4 digits)")
    t = f"{I.RNG.randint(10, 23)}:{I.RNG.choice(['00', '15', '30', '45'])}"
    add(f"meeting moved to {t}, room B-204", [t, "B-204"], "en", "a time and a meeting room")
    gate, seat = f"Gate {I.RNG.choice('ABC')}{I.RNG.randint(10, 59)}", f"seat {I.RNG.randint(10, 39)}C"
    add(f"{gate}, {seat}, boarding group 3", [gate, seat], "en", "gate and seat")
    n = luhn_number("4", 16)
    add(f"Referencia de la transferencia: {n}", [n], "es",
        "16-digit Luhn-valid transfer reference (look-alike by label)", [("luhn", n)])
    cp = f"410{I.RNG.randint(1, 20):02d}"
    add(["el código postal?", f"{cp}, Sevilla"], [cp], "es",
        "split look-alike: a postcode after 'code'")
    qty = f"{I.RNG.randint(200, 999)} Stück"
    add(["Wie viele Stück?", f"{qty}, bitte bis Freitag"], [qty], "de",
        "split look-alike: a quantity")
    fl = f"TP{I.RNG.randint(1000, 1999)}"
    add(["Qual é o número do voo?", f"{fl}, chega às 14h"], [fl], "pt",
        "split look-alike: flight number")
    add("El formato del DNI es 8 números y una letra, como en el ejemplo 12345678Z del folleto", ["12345678Z"],
        "es", "documented example DNI (public placeholder)", [("es_dni", "12345678Z")])
    return out
