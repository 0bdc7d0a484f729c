"""split cases of dev6: the first message announces a secret, the second carries it. Written by hand."""
from ids_dev6 import (ae_emirates_id, ar_cuil, case, cr_cedula, eg_nid, gh_card, gt_cui, hkid, ir_melli, jmbg,
                      kw_civil, kz_iin, lk_nic, ma_cin, md_idnp, password, pin, ru_snils, sa_id, sv_dui, tw_id,
                      ua_rntrc, ve_rif_person)


def S(first, second, secret, keep, language, source, checks=()):
    return case("split", [first, second], secret, keep, language, source, checks)


def cases():
    out = []
    ir = ir_melli()
    out.append(S("my kod melli is", ir, [ir], ["kod melli"], "en", "Iran kod melli, value alone",
                 [("ir_melli", ir)]))
    m = ma_cin()
    out.append(S("voici mon numéro CIN :", f"{m} (la nouvelle carte)", [m], ["numéro CIN"], "fr",
                 "Morocco CIN with words after"))
    code = pin(4)
    out.append(S("the alarm code, one sec", f"ok it's {code}, disarm it before the dog walker comes", [code],
                 ["alarm code"], "en", "alarm code announced then given"))
    p = pin(4)
    out.append(S("PIN to follow", p, [p], ["PIN to follow"], "en", "PIN announced, value alone"))
    t = tw_id()
    out.append(S("ok the Taiwan ID for Mei's ticket is", t, [t], ["Taiwan ID", "Mei's ticket"], "en",
                 "Taiwan ID split", [("tw_id", t)]))
    h = hkid()
    out.append(S("HKID de ma belle-mère, attends je regarde sa carte", f"c'est {h}", [h], ["HKID de ma belle-mère"],
                 "fr", "HKID split, French", [("hk_hkid", h)]))
    du = sv_dui()
    out.append(S("te paso el DUI de mi hermano para el envío", du, [du], ["DUI de mi hermano"], "es",
                 "El Salvador DUI split", [("sv_dui", du)]))
    g = gt_cui()
    out.append(S("Número de DPI (para el banco):", f"{g} gracias!!", [g], ["Número de DPI"], "es",
                 "Guatemala DPI split", [("gt_cui", g)]))
    c = ar_cuil()
    out.append(S("y el cuil?", f"{c}", [c], ["cuil"], "es", "Argentina CUIL split after a self-question",
                 [("ar_cuit", c)]))
    r = ve_rif_person()
    out.append(S("Para el contrato necesitás mi RIF, ¿no? Ahí va", f"> {r}", [r], ["mi RIF"], "es",
                 "Venezuela RIF quoted with >", [("ve_rif", r)]))
    cr = cr_cedula()
    out.append(S("cédula de la señora Rojas, la del apartamento 3:", cr, [cr], ["cédula de la señora Rojas"], "es",
                 "Costa Rica cédula of a tenant", [("cr_cpf", cr)]))
    e = eg_nid()
    out.append(S("Egyptian national ID of Yasmin coming next, copy it to the form", f"{e}", [e],
                 ["Egyptian national ID"], "en", "Egypt national ID split", [("eg_nid_format", e)]))
    a = ae_emirates_id()
    out.append(S("Emirates ID — hold on, it's in my wallet", f"found it: {a}", [a], ["Emirates ID"], "en",
                 "Emirates ID after 'found it'", [("ae_eid", a)]))
    s = sa_id(resident=True)
    out.append(S("Iqama?", f"yes: {s}", [s], ["Iqama"], "en", "iqama after a one-word question",
                 [("sa_id", s)]))
    k = kw_civil()
    out.append(S("Numero civil ID del Kuwait per la pratica di Farah:", k, [k], ["civil ID del Kuwait"], "it",
                 "Kuwait civil ID, Italian", [("kw_civil", k)]))
    kz = kz_iin()
    out.append(S("Mein IIN (Kasachstan) für die Anmeldung, kommt gleich", f"{kz}", [kz], ["IIN (Kasachstan)"], "de",
                 "Kazakhstan IIN, German", [("kz_iin", kz)]))
    sn = ru_snils()
    out.append(S("SNILS for mum, the Gosuslugi one:", f"{sn} — double check the last two", [sn], ["SNILS for mum"],
                 "en", "Russia SNILS split", [("ru_snils", sn)]))
    ua = ua_rntrc()
    out.append(S("Hier komt het Oekraïense belastingnummer van Iryna", ua, [ua], ["Oekraïense belastingnummer"], "nl",
                 "Ukraine RNOKPP split, Dutch", [("ua_rntrc", ua)]))
    j = jmbg("rs")
    out.append(S("JMBG od tate? sec", f"{j}", [j], ["JMBG"], "en", "Serbia JMBG split, casual", [("jmbg", j)]))
    md = md_idnp()
    out.append(S("O IDNP da Ana (Moldávia) é", f"{md}, confirma se bate com o passaporte", [md], ["IDNP da Ana"],
                 "pt", "Moldova IDNP, Portuguese", [("md_idnp", md)]))
    lk = lk_nic(new=True)
    out.append(S("new NIC number", lk, [lk], ["new NIC number"], "en", "Sri Lanka new NIC split",
                 [("lk_nic_format", lk)]))
    gc = gh_card()
    out.append(S("Ghana card PIN pls note it down:", gc, [gc], ["Ghana card PIN"], "en", "Ghana Card split"))
    pw = password(13)
    out.append(S("wifi da casa de praia, a senha é", pw, [pw], ["senha"], "pt", "Wi-Fi password split, Portuguese"))
    pw2 = password(16)
    out.append(S("Das Passwort fürs Vereinskonto schick ich separat", f"{pw2}\n(bitte nicht weitergeben)", [pw2],
                 ["Passwort fürs Vereinskonto"], "de", "club account password sent separately"))
    pw3 = password(12)
    out.append(S("mot de passe du compte Ameli de papa :", pw3, [pw3], ["mot de passe du compte Ameli"], "fr",
                 "health account password, French"))
    pw4 = password(15)
    out.append(S("la contraseña del router nuevo (la de la pegatina ya no vale)", f"es {pw4}", [pw4],
                 ["contraseña del router nuevo"], "es", "router password after words"))
    pw5 = password(14)
    out.append(S("wachtwoord van de gedeelde Netflix, ik typ het even over", pw5, [pw5], ["wachtwoord"], "nl",
                 "shared streaming password, Dutch"))
    pw6 = password(11)
    out.append(S("la password della mail dell'ufficio è cambiata, la nuova è", f"{pw6}", [pw6],
                 ["password della mail dell'ufficio"], "it", "office mail password, Italian"))
    d = pin(4)
    out.append(S("portão da garagem, o código novo:", f"{d}#", [d], ["portão da garagem"], "pt",
                 "garage gate code with # after"))
    d2 = pin(5)
    out.append(S("Türcode fürs Treppenhaus hat sich geändert", f"jetzt {d2}", [d2], ["Türcode"], "de",
                 "stairwell door code"))
    d3 = pin(6)
    out.append(S("le digicode de l'immeuble de Clémence", f"{d3[:3]}{d3[3:]} puis bouton vert", [d3],
                 ["digicode"], "fr", "building door code, French"))
    d4 = pin(4)
    out.append(S("codice del lucchetto della bici", d4, [d4], ["codice del lucchetto"], "it",
                 "bike lock combination, Italian"))
    d5 = pin(4)
    out.append(S("pincode van mijn nieuwe bankpas, zet het in de kluis-notitie", d5, [d5], ["pincode"], "nl",
                 "debit card PIN, Dutch"))
    d6 = pin(6)
    out.append(S("the voicemail PIN for the office line:", f"{d6} (don't change it)", [d6], ["voicemail PIN"], "en",
                 "voicemail PIN"))
    d7 = pin(4)
    out.append(S("Clave de la tarjeta de débito de la abuela, para que saques el efectivo", f"{d7}", [d7],
                 ["Clave de la tarjeta"], "es", "debit card PIN of a grandmother, Spanish"))
    d8 = pin(3)
    out.append(S("CVV of the Revolut virtual card ending 8841", d8, [d8], ["CVV"], "en",
                 "CVV split from the card's last four"))
    d9 = pin(4)
    out.append(S("key safe at the cottage - the combination is", f"{d9}, then slide down", [d9],
                 ["key safe at the cottage"], "en", "key safe combination"))
    d10 = pin(4)
    out.append(S("Code vom Schließfach im Fitnessstudio:", f"{d10} 👍", [d10], ["Schließfach"], "de",
                 "gym locker code with emoji"))
    h2 = hkid()
    out.append(S("ok, HKID", f"{h2}", [h2], ["HKID"], "en", "HKID after a bare label", [("hk_hkid", h2)]))
    d11 = pin(4)
    out.append(S("el código de la caja de las llaves del piso turístico", f"{d11} (cámbialo cuando se vayan)", [d11],
                 ["caja de las llaves"], "es", "key box code, Spanish"))
    return out
