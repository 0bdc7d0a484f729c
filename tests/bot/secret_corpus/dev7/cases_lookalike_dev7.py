"""lookalike cases for dev7: values that must survive, next to the PIN, identity-number and password kinds."""
import ids_dev7 as I
from ids_dev7 import RNG, case, digits

K = "lookalike"


def cases():
    out = []
    v = "1Z" + "".join(RNG.choice("0123456789ABCDEFGHJKLMNPRSTVWXY") for _ in range(16))
    out.append(case(K, f"tracking no {v} says out for delivery, can someone be home?", [], [v], "en",
                    "UPS-style tracking number"))
    v = digits(3) + "-" + digits(2) + "-" + digits(4)
    out.append(case(K, f"order #{v} still hasn't shipped, it's been 2 weeks", [], [v], "en",
                    "order number shaped like an SSN"))
    out.append(case(K, "my SSN ends in 4417 if that helps them find the file — they only ask for the last 4", [],
                    ["4417", "last 4"], "en", "last four digits only (not the whole number)"))
    out.append(case(K, "card on file: ***-**-6630 / Visa •••• 2281", [], ["***-**-6630", "•••• 2281"], "en",
                    "masked numbers"))
    out.append(case(K, "Boarding at gate B22, flight LH 1907 leaves 14:35, seat 23C", [], ["B22", "LH 1907", "14:35",
                    "23C"], "en", "gate, flight, time, seat"))
    out.append(case(K, "I forgot my password AGAIN 🙄 how do I reset it on the HMRC site?", [],
                    ["I forgot my password AGAIN", "HMRC site"], "en", "password talk, no value"))
    out.append(case(K, "what's my PIN even for? the letter from the bank just says 'keep your PIN safe'", [],
                    ["what's my PIN even for?", "keep your PIN safe"], "en", "PIN question, no value"))
    out.append(case(K, "wifi network name is Dunmore_Guest (no password needed, it's open)", [],
                    ["Dunmore_Guest", "no password needed"], "en", "SSID only"))
    v = digits(4)
    out.append(case(K, f"use promo code SPRING{v[:2]} at checkout for 15% off, it's on their insta", [],
                    [f"SPRING{v[:2]}", "15% off"], "en", "public promo code"))
    out.append(case(K, "the error code is 0x80070643 when I run windows update", [], ["0x80070643"], "en",
                    "error code"))
    v = str(RNG.randint(1000, 9999))
    out.append(case(K, f"room {v[:3]} on the 4th floor, bring the extension lead", [], [v[:3], "4th floor"], "en",
                    "room number"))
    v = I.luhn_number(16, "4")
    out.append(case(K, f"Invoice ref {v} — please quote it on the bank transfer", [], [v], "en",
                    "Luhn-valid 16-digit invoice reference", [("luhn", v)]))
    out.append(case(K, "the 2019 model costs £1,249 and the new one £1,499, version 14.2.1 fixes the battery", [],
                    ["2019", "£1,249", "£1,499", "14.2.1"], "en", "year, prices, version"))
    out.append(case(K, "ring me on 07700 900461 when you land", [], ["07700 900461"], "en",
                    "UK phone number (Ofcom drama range)"))
    v = f"{RNG.choice('ABCDEFGHJK')}{RNG.choice('ABCDEFGHJK')}{digits(6)}"
    out.append(case(K, f"booking reference {v[:6]} for the Eurostar, coach 12 seat 41", [],
                    [v[:6], "coach 12", "seat 41"], "en", "PNR-style booking reference"))
    v = "GB" + digits(9)
    out.append(case(K, f"our VAT number is {v}, company reg 0{digits(7)}", [], [v], "en", "UK company VAT"))
    out.append(case(K, "Model: WH-1000XM4, serial on the box, 2 units, total 698.00", [],
                    ["WH-1000XM4", "2 units", "698.00"], "en", "model number, quantity, amount"))
    out.append(case(K, "bus 148 then change to the 7 at Elm Park, takes about 35 min", [],
                    ["bus 148", "35 min"], "en", "bus numbers"))
    out.append(case(K, "the code for the discount is on the flyer, i don't have it here", [],
                    ["the code for the discount is on the flyer"], "en", "code talk, no value"))
    out.append(case(K, "My NI number is on my payslip, can you check it there? I'm not at home", [],
                    ["My NI number is on my payslip"], "en", "document named, no value"))
    v = digits(6)
    out.append(case(K, f"Ticket #{v} – your request about 'PIN not working' has been closed", [],
                    [f"#{v}", "PIN not working"], "en", "support ticket near PIN word"))
    v = str(RNG.randint(200, 299))
    out.append(case(K, f"locker code? no, locker NUMBER is {v}. The code I'll tell you in person", [],
                    [f"locker NUMBER is {v}", "I'll tell you in person"], "en", "locker number, code withheld"))
    v = I.de_vat()
    out.append(case(K, f"Rechnung bitte an Müller Haustechnik GmbH, USt-IdNr. {v}", [], [v], "de",
                    "German company VAT", [("de_vat", v)]))
    v = digits(10)
    out.append(case(K, f"Sendungsnummer {v[:4]} {v[4:8]} {v[8:]} – DHL sagt Zustellung morgen", [],
                    [f"{v[:4]} {v[4:8]} {v[8:]}"], "de", "DHL-style shipment number"))
    out.append(case(K, "PLZ 10437, Hausnummer 12a, 3. OG links", [], ["10437", "12a", "3. OG"], "de",
                    "postcode and house number"))
    out.append(case(K, "Ich hab meine PIN vergessen, wie lange dauert ein neuer PIN-Brief?", [],
                    ["Ich hab meine PIN vergessen", "PIN-Brief"], "de", "PIN talk, no value"))
    out.append(case(K, "Steuer-ID? Die steht auf dem Brief vom Bundeszentralamt, hab ihn grad nicht", [],
                    ["Die steht auf dem Brief vom Bundeszentralamt"], "de", "Steuer-ID named, no value"))
    out.append(case(K, "Gleis 7, ICE 578 um 16:12, Wagen 9", [], ["Gleis 7", "ICE 578", "16:12", "Wagen 9"], "de",
                    "train details"))
    v = digits(8)
    out.append(case(K, f"Kundennummer {v}, Vertragsnummer V-{digits(6)}", [], [v], "de",
                    "customer number shaped like an ID"))
    out.append(case(K, "Das WLAN heißt FRITZ!Box 7590 KQ, Passwort klebt unten am Router", [],
                    ["FRITZ!Box 7590 KQ", "Passwort klebt unten am Router"], "de", "SSID, password location only"))
    out.append(case(K, "Kostet 4,99 € pro Monat, 12 Monate Laufzeit, ab 2025", [], ["4,99 €", "12 Monate", "2025"],
                    "de", "amounts and years"))
    v = I.es_dni()
    out.append(case(K, f"número de pedido {v[:8]}-{v[8]}? no, ese es el de la devolución", [], [f"{v[:8]}-{v[8]}"], "es",
                    "order number shaped like a DNI (label decides)"))
    out.append(case(K, "código postal 28013, portal 4, 2º izquierda", [], ["28013", "portal 4", "2º izquierda"], "es",
                    "postcode, door"))
    out.append(case(K, "he olvidado la contraseña del banco otra vez, ¿cómo la recupero?", [],
                    ["he olvidado la contraseña del banco"], "es", "password talk, no value"))
    out.append(case(K, "vuelo IB3166, puerta K84, embarque 07:50", [], ["IB3166", "K84", "07:50"], "es",
                    "flight, gate"))
    out.append(case(K, "llámame al +34 612 44 90 17 cuando salgas", [], ["+34 612 44 90 17"], "es",
                    "Spanish mobile number"))
    v = "B" + digits(8)
    out.append(case(K, f"CIF de la empresa: {v} (Construcciones Peña SL)", [], [v], "es", "company CIF"))
    out.append(case(K, "el DNI me caduca en 2026, ¿se puede renovar online?", [], ["2026", "se puede renovar online"],
                    "es", "DNI named, no value"))
    v = I.fr_siren()
    out.append(case(K, f"SIREN de la boîte : {v}, c'est public sur societe.com", [], [v], "fr",
                    "French company SIREN", [("fr_siren", v)]))
    out.append(case(K, "le code promo BIENVENUE10 marche encore ?", [], ["BIENVENUE10"], "fr", "promo code"))
    out.append(case(K, "Vol AF1234 retardé, nouvelle heure 18h45, porte F32", [], ["AF1234", "18h45", "F32"], "fr",
                    "flight and gate"))
    out.append(case(K, "J'ai oublié mon mot de passe Doctolib, je fais 'mot de passe oublié' ?", [],
                    ["J'ai oublié mon mot de passe Doctolib", "mot de passe oublié"], "fr", "no value"))
    v = digits(10)
    out.append(case(K, f"n° de commande {v}, livraison prévue jeudi", [], [v], "fr", "order number"))
    out.append(case(K, "appart 3B, digicode en bas à droite de la porte (je te l'envoie en privé)", [],
                    ["appart 3B", "je te l'envoie en privé"], "fr", "door code mentioned, not given"))
    out.append(case(K, "75011 Paris, 06 12 34 56 78", [], ["75011", "06 12 34 56 78"], "fr", "postcode + phone"))
    v = I.it_partita_iva()
    out.append(case(K, f"P.IVA {v} — fattura intestata alla ditta, non a me", [], [v], "it", "Italian VAT",
                    [("it_iva", v)]))
    out.append(case(K, "binario 5, Frecciarossa 9521, carrozza 8 posto 12A", [], ["binario 5", "9521", "12A"], "it",
                    "train"))
    out.append(case(K, "ho perso il PIN del bancomat, devo andare in filiale?", [], ["ho perso il PIN del bancomat"],
                    "it", "PIN talk"))
    v = digits(12)
    out.append(case(K, f"numero pratica {v}, la chiamata dura 20 minuti", [], [v, "20 minuti"], "it",
                    "case number shaped like an ID"))
    out.append(case(K, "CAP 20121 Milano, interno 14", [], ["20121", "interno 14"], "it", "postcode, flat number"))
    v = "LB" + digits(9) + "BR"
    out.append(case(K, f"código de rastreio {v} chegou em Curitiba", [], [v], "pt", "UPU S10-shaped tracking code"))
    out.append(case(K, "CEP 01310-100, ap 72", [], ["01310-100", "ap 72"], "pt", "Brazilian CEP"))
    out.append(case(K, "esqueci a senha do app do banco, qual é o passo a passo?", [],
                    ["esqueci a senha do app do banco"], "pt", "senha talk"))
    v = digits(2) + "." + digits(3) + "." + digits(3) + "/0001-" + digits(2)
    out.append(case(K, f"CNPJ da loja {v}, nota fiscal sai nesse", [], [v], "pt", "Brazilian company CNPJ shape"))
    out.append(case(K, "voo TP1352, porta 14, sai às 11h20", [], ["TP1352", "porta 14", "11h20"], "pt", "flight"))
    out.append(case(K, "custa R$ 129,90 em 3x sem juros", [], ["R$ 129,90", "3x"], "pt", "price"))
    v = digits(9)
    out.append(case(K, f"ordernummer {v}, retour gaat via PostNL", [], [v], "nl", "order number 9 digits (BSN shape)"))
    out.append(case(K, "postcode 3511 LK, huisnummer 88-2", [], ["3511 LK", "88-2"], "nl", "Dutch postcode"))
    out.append(case(K, "wachtwoord vergeten van mijn DigiD, hoe lang duurt een nieuwe activeringscode?", [],
                    ["wachtwoord vergeten van mijn DigiD"], "nl", "no value"))
    v = "NL" + digits(9) + "B01"
    out.append(case(K, f"btw-nummer van de zaak {v}", [], [v], "nl", "Dutch company VAT number"))
    out.append(case(K, "kluisje 214 in de sportschool, de sleutel hangt aan mijn tas", [], ["kluisje 214"], "nl",
                    "locker number"))
    v = I.be_vat()
    out.append(case(K, f"TVA intracom : {v} (SRL Dubois Frères)", [], [v], "fr", "Belgian company VAT",
                    [("be_vat", v)]))
    v = I.spoil_digit(I.luhn_number(16, "4"))
    out.append(case(K, f"Bestellnummer {v}", [], [v], "de", "16-digit order number starting 4 failing Luhn",
                    [("luhn_fail", v)]))
    out.append(case(K, "passport expires 03/2031, do I need 6 months validity for Thailand?", [],
                    ["03/2031", "6 months"], "en", "passport named, no number"))
    out.append(case(K, "PIN code 560034, Koramangala, Bengaluru", [], ["560034"], "en", "Indian postal PIN code"))
    out.append(case(K, "the password requirements are min 12 chars, 1 number, 1 symbol — annoying", [],
                    ["min 12 chars", "1 number"], "en", "password policy, no value"))
    out.append(case(K, "alarm goes off at 0630, meeting at 0900, 3 kids, 2 dogs", [], ["0630", "0900"], "en",
                    "4-digit times"))
    return out
