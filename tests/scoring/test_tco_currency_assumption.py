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
    assert "as if 1 USD were 6.67 CNY" in en and "no market exchange rate is applied" in en
    assert "1 USD = 6.67 CNY" in zh and "不按市场汇率换算" in zh
    assert "currency_reference" not in _assumptions(by_id[2])
    # What the line says is what the score does: a GPU-hour price at the implied rate scores
    # the same cost in either currency.
    assert by_id[1].score("cost") == by_id[2].score("cost")


def test_operations_staff_of_a_foreign_price_are_converted_at_the_implied_rate():
    # Expert review: a USD quote dropped the buyer's operations staff (priced in CNY), so the
    # same offer scored better on cost quoted in USD than in CNY.
    spec = evaluation(budget_total=None, ops_capacity="none", ops_staff_cost_month=Decimal(30000))
    ranking = score_candidates(
        [_priced(1, "USD", "3"), _priced(2, "CNY", "20")], spec, rubric_version="2"
    )
    by_id = {r.candidate_id: r for r in ranking.results}
    en, zh = _assumptions(by_id[1])["currency_reference"]
    assert en.endswith(
        "the operations staff cost (in CNY) is converted to USD at the same implied rate"
    )
    assert "按同一隐含汇率折算为 USD" in zh
    usd, cny = (dict(by_id[i].tco.best.components)["operations"] for i in (1, 2))
    assert cny > 0
    # 3.00 USD against 20.00 CNY for an H100: the staff cost times 3 / 20, to the cent.
    assert usd == (cny * Decimal(3) / Decimal(20)).quantize(Decimal("0.01"))
    # The same offer, the same staff: the same cost score in either currency.
    assert by_id[1].score("cost") == by_id[2].score("cost")
