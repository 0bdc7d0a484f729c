"""Connectors: the code that acts on outside services on the user's behalf.

Each connector lives in its own subpackage (e.g. `deputy.connectors.email`) and describes
its operations with `OperationSpec`s; the shared vocabulary is re-exported here. What
several connectors share sits beside them: `addresses` (email address checks), `overrides`
and `marks` (how the user classifies imported operations).
"""

from deputy.core.records.effects import (
    ConnectorAuthError,
    ConnectorError,
    ConnectorRejected,
    ConnectorOutcomeUnknown,
    ConnectorUnavailable,
    EffectClass,
    OperationResult,
    OperationSpec,
    RiskTag,
)

__all__ = [
    "ConnectorAuthError",
    "ConnectorError",
    "ConnectorRejected",
    "ConnectorOutcomeUnknown",
    "ConnectorUnavailable",
    "EffectClass",
    "OperationResult",
    "OperationSpec",
    "RiskTag",
]
