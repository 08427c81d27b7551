"""Shapes of computed results (ranking, robustness) and of audit rows, for answers and schema.

The ranking is built as plain data by ``portal.api.ranking`` (fast); these serializers describe
it in the OpenAPI schema and validate query parameters.
"""

from rest_framework import serializers


class KnockoutSerializer(serializers.Serializer):
    code = serializers.CharField()
    reason_en = serializers.CharField()
    reason_zh = serializers.CharField()
    evidence_ref = serializers.CharField(allow_null=True)


class TcoSummarySerializer(serializers.Serializer):
    currency = serializers.CharField()
    gpu_count = serializers.IntegerField()
    duration_days = serializers.IntegerField()
    used_days = serializers.IntegerField()
    cheapest_billing_model = serializers.CharField()
    total = serializers.DecimalField(max_digits=30, decimal_places=4, coerce_to_string=True)
    monthly = serializers.DecimalField(max_digits=30, decimal_places=4, coerce_to_string=True)
    cost_per_effective_gpu_hour = serializers.DecimalField(
        max_digits=30, decimal_places=6, coerce_to_string=True, allow_null=True
    )
    break_even_used_days = serializers.DecimalField(
        max_digits=30, decimal_places=4, coerce_to_string=True, allow_null=True
    )


class RankedCandidateSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="1-based place in the ranking.")
    candidate = serializers.IntegerField()
    label = serializers.CharField()
    offering = serializers.IntegerField()
    vendor_name = serializers.CharField()
    total = serializers.FloatField(help_text="Weighted total, 0..100.")
    disqualified = serializers.BooleanField()
    scores = serializers.DictField(
        child=serializers.FloatField(), help_text="Dimension -> score, 0..100."
    )
    knockouts = KnockoutSerializer(many=True)
    tco = TcoSummarySerializer(allow_null=True)


class RankingSerializer(serializers.Serializer):
    evaluation = serializers.IntegerField()
    rubric_version = serializers.CharField()
    workload_profile = serializers.CharField()
    weights = serializers.DictField(
        child=serializers.FloatField(), help_text="Normalised weights (sum 1)."
    )
    leader = serializers.IntegerField(allow_null=True)
    results = RankedCandidateSerializer(many=True)


class FlipSerializer(serializers.Serializer):
    leader_id = serializers.IntegerField()
    other_id = serializers.IntegerField()
    dimension = serializers.CharField()
    weight_pct = serializers.FloatField()
    change_pp = serializers.FloatField(allow_null=True)
    new_weight_pct = serializers.FloatField(allow_null=True)


class StabilitySerializer(serializers.Serializer):
    draws = serializers.IntegerField()
    perturbation_pct = serializers.FloatField()
    seed = serializers.IntegerField()
    first_share = serializers.DictField(
        child=serializers.FloatField(), help_text="Candidate id -> share of draws it leads."
    )


class RobustnessSerializer(serializers.Serializer):
    evaluation = serializers.IntegerField()
    leader_id = serializers.IntegerField(allow_null=True)
    flips = FlipSerializer(many=True)
    stability = StabilitySerializer()


class RobustnessQuerySerializer(serializers.Serializer):
    draws = serializers.IntegerField(min_value=10, max_value=5000, required=False, default=1000)
    perturbation_pct = serializers.FloatField(
        min_value=0.0, max_value=100.0, required=False, default=20.0
    )
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False, default=0)


class FieldChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    label = serializers.CharField()
    before = serializers.CharField(allow_null=True)
    after = serializers.CharField(allow_null=True)


class AuditEntrySerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    user = serializers.CharField(allow_null=True, help_text="Username; null for the system.")
    kind = serializers.CharField(help_text="answer, candidate, evaluation, offering, price, …")
    kind_label = serializers.CharField()
    object_id = serializers.IntegerField()
    object_label = serializers.CharField()
    action = serializers.ChoiceField(choices=["created", "changed", "deleted", "decided"])
    changes = FieldChangeSerializer(many=True)
