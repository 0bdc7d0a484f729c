"""The operations every Deputy offers, whatever else is connected."""

from connectors.catalog import Catalog
from connectors.email.operations import SEND_EMAIL_OPERATION


def default_catalog() -> Catalog:
    return Catalog([SEND_EMAIL_OPERATION])
