"""The operations every Deputy offers, whatever else is connected."""

from deputy.connectors.calendar.operations import CALENDAR_OPERATIONS
from deputy.connectors.catalog import Catalog
from deputy.connectors.email.mail_operations import MAIL_OPERATIONS
from deputy.connectors.email.operations import SEND_EMAIL_OPERATION
from deputy.connectors.web.operations import WEB_OPERATIONS
from deputy.connectors.web.operations import PAY_ON_PAGE


def default_catalog() -> Catalog:
    return Catalog([SEND_EMAIL_OPERATION, *MAIL_OPERATIONS, *CALENDAR_OPERATIONS, *WEB_OPERATIONS, PAY_ON_PAGE])
