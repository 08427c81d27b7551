"""A candidate priced in another currency than the evaluation's is scored against the rubric's
reference price of its own currency: the two references amount to an exchange rate nobody
stated, so the TCO's assumptions say so (in English and Chinese) with the rate they imply."""

from decimal import Decimal

from scoring.api import score_candidates
from scoring.types import Price
from tests.scoring.scoring_factories import candidate, evaluation, offering


def _assumptions(result):
    return {code: (en, zh) for code, en, zh in result.tco.assumptions()}


def _priced(candidate_id, currency, hourly):
    # GPU-hours only: no storage, support or other money in the candidate's currency.
    return candidate(
        candidate_id,
        offering=offering(
            currency=currency,
            prices=(Price("hourly", Decimal(hourly)),),
            storage_cost_month=Decimal(0),
            support_cost_month=Decimal(0),
        ),
    )


def test_a_foreign_currency_price_states_the_exchange_rate_its_reference_implies():
    spec = evaluation(budget_total=None)
    ranking = score_candidates(
        [_priced(1, "USD", "3"), _priced(2, "CNY", "20")], spec, rubric_version="2"
    )
    by_id = {r.candidate_id: r for r in ranking.results}
    en, zh = _assumptions(by_id[1])["currency_reference"]
    # The packaged v2 references for an H100: 3.00 USD and 20.00 CNY per GPU-hour.
    assert "priced in USD, the evaluation counts in CNY" in en
    assert "as if 1 USD were 6.67 CNY" in en and "no exchange rate is applied" in en
    assert "1 USD = 6.67 CNY" in zh and "不做汇率换算" in zh
    assert "currency_reference" not in _assumptions(by_id[2])
    # What the line says is what the score does: a GPU-hour price at the implied rate scores
    # the same cost in either currency.
    assert by_id[1].score("cost") == by_id[2].score("cost")


def test_operations_staff_left_out_of_a_foreign_price_are_said_to_be():
    spec = evaluation(budget_total=None, ops_capacity="none", ops_staff_cost_month=Decimal(30000))
    ranking = score_candidates([_priced(1, "USD", "3")], spec, rubric_version="2")
    en, zh = _assumptions(ranking.results[0])["currency_reference"]
    assert en.endswith("the operations staff cost (in CNY) is not added")
    assert "未计入运维人员成本" in zh
