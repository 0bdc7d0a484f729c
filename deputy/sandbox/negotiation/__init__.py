"""The sandbox's negotiation world: a marketplace listing and a provider's retention desk with scripted
counterparts (`counterparts`), their operations (`operations`), an in-process world (`world`) and a website
with an OpenAPI description (`site`), scripted negotiators (`agents`) and the scenarios that play them
through the real runner, executor and guard (`scenarios`)."""
