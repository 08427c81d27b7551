"""Shapes of computed results (ranking, robustness) and of audit rows, for answers and schema.

The ranking is built as plain data by ``portal.api.ranking`` (fast); these serializers describe
it in the OpenAPI schema and validate query parameters.
"""

from rest_framework import serializers


class PocEvidenceSerializer(serializers.Serializer):
    node = serializers.CharField()
    file = serializers.CharField()
    upload_id = serializers.IntegerField(allow_null=True)


class PocShortfallSerializer(serializers.Serializer):
    """A required POC run that failed, checked nothing or was missing at the deadline
    (scoring.poc.PocShortfall.as_dict): the structure behind the English explanation."""

    run_key = serializers.CharField(help_text="The run's key: kind, then @node or @a~b.")
    kind = serializers.CharField(help_text="The run kind (scoring.poc RUN_LABELS' keys).")
    node = serializers.CharField(help_text="The node the run was required on, or empty.")
    peers = serializers.ListField(
        child=serializers.CharField(), help_text="The node pair of a pairwise run, or empty."
    )
    reason = serializers.ChoiceField(choices=["missing", "failed", "unproven"])
    note = serializers.CharField(help_text="Why, in English (empty for a missing run).")
    note_code = serializers.CharField(
        help_text=(
            "Why, as a code (dcgm_fail, dcgm_skip, dcgm_incomplete, nccl_wrong, fio_errors, "
            "foreign_gpu) or empty."
        )
    )
    note_args = serializers.DictField(child=serializers.CharField())
    evidence = PocEvidenceSerializer(allow_null=True)
    evidence_ref = serializers.CharField(help_text="The evidence as one English line.")


class KnockoutSerializer(serializers.Serializer):
    code = serializers.CharField()
    reason_en = serializers.CharField()
    reason_zh = serializers.CharField()
    evidence_ref = serializers.CharField(allow_null=True)
    poc = PocShortfallSerializer(many=True, help_text="The POC runs a POC must-have is about.")


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
    ranking_version = serializers.CharField(
        help_text="The version of these figures (each candidate's place, total and knockout "
        "state): send it with a decision so that it is recorded on them, or refused (409) "
        "when the ranking has changed since."
    )
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
    user_name = serializers.CharField(
        allow_null=True,
        help_text="The person as the pages name them: full name with the username, "
        "'Morgan Manager (manager)', or the username where no full name is set.",
    )
    kind = serializers.CharField(help_text="answer, candidate, evaluation, offering, price, …")
    kind_label = serializers.CharField()
    object_id = serializers.IntegerField()
    object_label = serializers.CharField()
    action = serializers.ChoiceField(choices=["created", "changed", "deleted", "decided"])
    changes = FieldChangeSerializer(many=True)
