"""The guidance of checklist items 9 and 10 says what their number holds (the monthly cost in
the offering's currency, the POC days) and sends the rest to the notes; a checklist whose
guidance was edited since it was loaded keeps its own text."""

from django.db import migrations

GUIDANCE = {
    "monthly_cost": (
        (
            "The all-in monthly cost for the requested scale, not the card-hour price. Billing "
            "terms: spot preemption rate, hourly release of idle capacity.",
            "按所需规模计算的每月全部费用，而非单卡小时价。计费条款：竞价实例抢占率、"
            "空闲资源能否按小时释放。",
        ),
        (
            "The all-in monthly cost for the requested scale, in the offering's currency, not "
            "the card-hour price. In the notes: the billing terms (spot preemption rate, hourly "
            "release of idle capacity).",
            "按所需规模计算的每月全部费用（以产品方案的币种计），而非单卡小时价。"
            "计费条款（竞价实例抢占率、空闲资源能否按小时释放）写在备注中。",
        ),
    ),
    "poc_window": (
        (
            "Days of free POC access and whether benchmark results are contractually binding. "
            "The POC also shows the real provisioning time.",
            "免费 POC 天数，以及基准测试结果是否写入合同。POC 还可验证实际开通时间。",
        ),
        (
            "Days of free POC access. In the notes: whether benchmark results are contractually "
            "binding. The POC also shows the real provisioning time.",
            "免费 POC 天数。在备注中说明基准测试结果是否写入合同。POC 还可验证实际开通时间。",
        ),
    ),
}


def _set(apps, schema_editor, *, forward: bool):
    ChecklistItem = apps.get_model("portal", "ChecklistItem")
    for key, (old, new) in GUIDANCE.items():
        before, after = (old, new) if forward else (new, old)
        for lang, (was, becomes) in enumerate(zip(before, after, strict=True)):
            field = ("help_en", "help_zh")[lang]
            ChecklistItem.objects.filter(key=key, **{field: was}).update(**{field: becomes})


def forwards(apps, schema_editor):
    _set(apps, schema_editor, forward=True)


def backwards(apps, schema_editor):
    _set(apps, schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0032_evaluation_accepted_gpu_models"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
