"""Choice fields whose choice set is shared by several API fields.

Each is one named component of the OpenAPI schema (``Currency``, ``BillingModel``…), so the
schema names every choice set once, whatever the field that uses it is called.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ...models import (
    BillingModel,
    Currency,
    EvaluationStatus,
    MlpsLevel,
    UploadStatus,
    VerificationStatus,
)


def _enum(values, *, kind: str = "string") -> dict:
    return {"type": kind, "enum": list(values)}


@extend_schema_field(_enum(Currency.values), component_name="Currency")
class CurrencyField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=Currency.choices, **kwargs)


@extend_schema_field(_enum(BillingModel.values), component_name="BillingModel")
class BillingModelField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=BillingModel.choices, **kwargs)


@extend_schema_field(
    {**_enum(["", *BillingModel.values]), "description": "Empty for no quote."},
    component_name="QuotedBillingModel",
)
class QuotedBillingModelField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=BillingModel.choices, allow_blank=True, **kwargs)


@extend_schema_field(_enum(MlpsLevel.values, kind="integer"), component_name="MlpsLevel")
class MlpsLevelField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=MlpsLevel.choices, **kwargs)


@extend_schema_field(_enum(EvaluationStatus.values), component_name="EvaluationStatus")
class EvaluationStatusField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=EvaluationStatus.choices, **kwargs)


@extend_schema_field(_enum(VerificationStatus.values), component_name="VerificationStatus")
class VerificationStatusField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=VerificationStatus.choices, **kwargs)


@extend_schema_field(_enum(UploadStatus.values), component_name="UploadStatus")
class UploadStatusField(serializers.ChoiceField):
    def __init__(self, **kwargs):
        super().__init__(choices=UploadStatus.choices, **kwargs)
