"""Clean the text stored before it was cleaned where it enters (services.text.clean_text).

Names, labels, node names and what people typed at length (claims, notes, review notes) are
now stored without bidi overrides and control characters; rows written before keep them and
show them on every page, export and report. This rewrites those rows, and only those: each
value is compared with its cleaned form, so a clean database is read and left as it is.

Records written once (decision records and their snapshots, reopenings, evidence deletions,
pinned offering versions and the audit history) are left as they were written: they are the
record of what was decided or done.

Measurements carry their upload's node name: only the measurements of an upload whose node
name changed are rewritten (through the upload index), never the whole table.
"""

from django.db import migrations, models

from portal.services.text import clean_text

# (model, single-line fields, multi-line fields); None: every editable CharField (single
# line) and TextField (multi-line) of the model, as services.text.clean_text_fields cleans
# them when they are saved.
EVERY = None
FIELDS = (
    ("Evaluation", EVERY, EVERY),
    ("Vendor", EVERY, EVERY),
    ("Offering", EVERY, EVERY),
    ("Candidate", EVERY, EVERY),
    ("Workload", EVERY, EVERY),
    ("UploadToken", ("node_name", "label"), ()),
    ("EvidenceUpload", ("node_name", "original_name"), ()),
    ("Answer", (), ("claim", "notes")),
    ("AnswerReview", (), ("note",)),
)
BATCH = 2000


def _text_fields(model, single, multi):
    if single is not EVERY:
        return single, multi
    editable = [field for field in model._meta.concrete_fields if field.editable]
    return (
        tuple(f.name for f in editable if isinstance(f, models.CharField)),
        tuple(f.name for f in editable if isinstance(f, models.TextField)),
    )


def clean_rows(apps, schema_editor):
    changed_uploads: list[int] = []
    for model_name, single, multi in FIELDS:
        model = apps.get_model("portal", model_name)
        single, multi = _text_fields(model, single, multi)
        names = (*single, *multi)
        if not names:
            continue
        rows = model.objects.order_by("pk").values_list("pk", *names)
        for pk, *values in rows.iterator(chunk_size=BATCH):
            update = {}
            for name, value in zip(names, values, strict=True):
                if not isinstance(value, str):
                    continue
                cleaned = clean_text(value, multiline=name in multi)
                # A name of nothing but controls is kept rather than left empty.
                if cleaned != value and (cleaned.strip() or name in multi):
                    update[name] = cleaned
            if update:
                model.objects.filter(pk=pk).update(**update)
                if model_name == "EvidenceUpload" and "node_name" in update:
                    changed_uploads.append(pk)
    nodes = apps.get_model("portal", "PocCandidateNodes")
    for pk, listed in nodes.objects.order_by("pk").values_list("pk", "node_names").iterator():
        if not isinstance(listed, list):
            continue
        cleaned = [clean_text(n).strip() if isinstance(n, str) else n for n in listed]
        cleaned = [name for name in cleaned if name != ""]
        if cleaned != listed:
            nodes.objects.filter(pk=pk).update(node_names=cleaned)
    measurements = apps.get_model("portal", "Measurement").objects
    for upload_id in changed_uploads:
        of_upload = measurements.filter(upload_id=upload_id)
        for name in of_upload.values_list("node_name", flat=True).distinct():
            if clean_text(name) != name:
                of_upload.filter(node_name=name).update(node_name=clean_text(name))


class Migration(migrations.Migration):
    dependencies = [("portal", "0042_json_lz4_compression")]

    operations = [migrations.RunPython(clean_rows, migrations.RunPython.noop, elidable=True)]
