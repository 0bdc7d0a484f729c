"""The names of identity numbers of Latin America, Asia, Africa and Eastern Europe, and the check of each.

A number counts when it passes its country's check (`world_checks`) and the message names it: by its own
name ("CUIL", "DIMEX", "HKID", "kod melli", "iqama", "IDNP", "СНИЛС", "身分證字號"), or by its country in
any of the seven languages ("kuwaitiana", "ucraniano", "Oekraïense", "mauricien"). A number of the same
shape that fails the check, or that a nearer word names as something else (an order, a phone), stays
(`country_ids` reads them all the same way).

How much a check proves decides how much naming it needs. Where the number carries a birth date, a place
code or a letter besides its check digit (Taiwan, Hong Kong, Kazakhstan, Kuwait, Egypt, the Emirates...),
the country's name or any identity document's ("ID", "Ausweis", "cédula") is enough. Where it is a plain
run of digits with one check digit (Ukraine's RNOKPP, Iran's kod melli, Saudi Arabia's iqama...), the
country's name alone is not: a phone number passes one time in ten, so the message must also speak of an
identity or a tax number (`needs`).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from deputy.core.secret_scan import world_checks as check


class Scheme(NamedTuple):
    label: str  # the words that name the number (a regular expression, case-insensitive)
    valid: Callable[[str], bool]  # its check, on the number without separators
    shape: str = r"\d+"  # what the number is without separators
    reach: int = 160  # how far before the number its name may be (a check that one number in ten passes: close)
    needs: str | None = None  # what else the message must say (of an identity or a tax number), if anything
    any_id: bool = False  # whether any identity document's name (`ANY_ID`) names it too


# Any identity document's name, in the seven languages: enough next to a number whose check proves much.
ANY_ID = (r"id|ids|i\.d\.|id card|id number|identity(?: card| number| document)?|identit[ée]|identit[àa]|identidad|"
           r"identidade|identiteit\w*|identifica\w*|ausweis\w*|personalausweis|national id|carte|card|karte|tarjeta|"
           r"cart[aã]o|carta|kaart|documento|document|dokument|c[ée]dula|carn[eéê]t?|personal number")
# Words of identity and tax numbers, for a country's name that alone proves too little.
IDENTITY_CONTEXT = (r"(?i)\b(?:ids?|identi\w*|ausweis\w*|tax|steuer\w*|fiscal\w*|fisc\w*|imp[ôo]ts?|impost\w*|"
                    r"belasting\w*|tribut\w*|contribu\w*|document\w*|dokument\w*|carn[eêé]t|c[ée]dula|pension\w*|"
                    r"rente\w*|retraite|social\w*|sozial\w*|persoonsnummer|personal number|visa|visum|visto|"
                    r"consula\w*|embass\w*|ambassa\w*|botschaft|embajada|embaixada|permesso|permis|residen\w*)\b")

SCHEMES = {
    "tw": Scheme(r"身分證(?:字號|號碼)?|國民身分證|統一證號|ta[iï]wan\w*|formos\w*", check.taiwan_id,
                 r"[A-Za-z][1289]\d{8}", any_id=True),
    "hk": Scheme(r"hkid|hk(?: id| card)?|hong ?kong\w*|香港身份證|身份證", check.hkid, r"[A-Za-z]{1,2}\d{6}[\dAa]",
                 any_id=True),
    "kz": Scheme(r"iin|иин|жсн|ka[sz]a(?:ch|kh?|j|qu)\w*|cazaqu\w*", check.kazakhstan_iin, any_id=True),
    "kw": Scheme(r"civil ?id|civil (?:id )?(?:card|number)|الرقم المدني|البطاقة المدنية|ko?u?wait\w*|kowe[iï]t\w*",
                 check.kuwait_civil_id, any_id=True),
    "ae": Scheme(r"eid|emirates? id|[ée]mir\w*|uae|eau|vae|emiratos|emirados", check.emirates_id, any_id=True),
    "eg": Scheme(r"الرقم القومي|[ée]gypt\w*|egipt\w*|egitt\w*|egizian\w*|[äa]gypt\w*|egypte\w*",
                 check.egypt_national_id, any_id=True),
    "mu": Scheme(r"nic|nid|mauric\w*|mauriti\w*|maur[íi]ci\w*", check.mauritius_nid, r"[A-Za-z]\d{12}[\dA-Za-z]",
                 any_id=True),
    "ni": Scheme(r"nicarag\w*", check.nicaragua_cedula, r"\d{13}[A-Za-z]", any_id=True),
    "gt_cui": Scheme(r"cui|dpi|documento personal de identificaci[óo]n|guatemal\w*", check.guatemala_cui,
                     any_id=True),
    "lk": Scheme(r"nic|sri ?lank\w*", check.sri_lanka_nic, r"\d{9}[VvXx]|(?:19|20)\d{10}", any_id=True),
    "md": Scheme(r"idnp(?:-ul)?|cod(?:ul)? personal|codice personale|c[óo]digo personal|code personnel|"
                 r"personal code|persoonlijke code|personenkennzahl|moldov\w*|moldav\w*|moldau\w*", check.moldova_idnp),
    "ar": Scheme(r"cuil|cuit|argentin\w*", check.argentina_cuil),
    "ve": Scheme(r"rif|venezol\w*|venezuel\w*|c[ée]dula", check.venezuela_rif, r"[VvEe]\d{9}"),
    "sv_nit": Scheme(r"nit|salvador\w*", check.salvador_nit),
    "ru": Scheme(r"inn|инн|ru(?:ss|s|ß)\w*|росси\w*|российск\w*", check.russia_inn, any_id=True),
    "gh": Scheme(r"tin|gra|ghan\w*", check.ghana_tin, r"[Pp]00\d{8}|[Pp]00\d{7}[Xx]"),
    "ke": Scheme(r"kra(?: pin)?|pin|keni?y?an?\w*|k[ée]nyan\w*|keniano?a?", check.kenya_pin, r"[Aa]\d{9}[A-Za-z]",
                 reach=60),
    # Plain digits with one check digit: their own name, or their country's and an identity's or a tax number's.
    "dui": Scheme(r"dui|documento [úu]nico de identidad", check.salvador_dui),
    "dui_country": Scheme(r"salvador\w*", check.salvador_dui, needs=IDENTITY_CONTEXT),
    "gt_nit": Scheme(r"nit", check.mod11_nit, r"\d{5,11}[\dKk]", 90),
    "py": Scheme(r"ruc|registro [úu]nico de contribuyentes", check.paraguay_ruc),
    "py_country": Scheme(r"paragua\w*", check.paraguay_ruc, needs=IDENTITY_CONTEXT),
    "ua": Scheme(r"rnokpp|рнокпп|іпн|ідентифікаційний (?:номер|код)|ипн|идентификационный (?:номер|код)",
                 check.ukraine_rnokpp),
    "ua_country": Scheme(r"ukrain\w*|ucra[íi]n\w*|oekra[iï]\w*|україн\w*", check.ukraine_rnokpp,
                         needs=IDENTITY_CONTEXT),
    "snils": Scheme(r"snils|снилс|страховой номер|gosuslugi|госуслуги", check.snils),
    "snils_country": Scheme(r"ru(?:ss|s|ß)\w*|росси\w*", check.snils, needs=IDENTITY_CONTEXT),
    "ir": Scheme(r"k[ou]d(?:e)?[ -]?(?:e[ -])?melli|code melli|melli|کد ملی|شماره ملی", check.iran_melli),
    "ir_country": Scheme(r"iran\w*|iraní\w*", check.iran_melli, needs=IDENTITY_CONTEXT),
    "sa": Scheme(r"iqama|إقامة|هوية|absher|muqeem", check.saudi_id),
    "sa_country": Scheme(r"saudi\w*|saudita\w*|saoudi\w*|saudisch\w*|saudiet\w*", check.saudi_id,
                         needs=IDENTITY_CONTEXT),
    "mz": Scheme(r"nuit|mo[çc]ambi\w*|mo[sz]ambi\w*", check.mozambique_nuit),
    "cr": Scheme(r"dimex|costa ?ric\w*|costarricense", check.costa_rica_dimex),
    "cu": Scheme(r"cub[ao]n?\w*|kuba\w*", check.cuba_ni, needs=IDENTITY_CONTEXT),
    "vn": Scheme(r"m[ãa] s[ốo] thu[ếe](?: c[áa] nh[âa]n)?|mst", check.vietnam_mst),
    "vn_country": Scheme(r"vi[eệ]t ?nam\w*|vietnam\w*", check.vietnam_mst, needs=IDENTITY_CONTEXT),
    "bd": Scheme(r"nid|bangladesh\w*|bangladesí\w*|bangladais\w*", check.bangladesh_nid, reach=60,
                 needs=IDENTITY_CONTEXT),
}
