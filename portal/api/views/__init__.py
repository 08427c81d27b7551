"""Views of the REST API, one module per area (routes in portal/api/urls.py)."""

from .catalogue import (
    ChecklistList,
    MeView,
    OfferingDetail,
    OfferingList,
    OfferingPriceDetail,
    OfferingPriceList,
    VendorDetail,
    VendorList,
)
from .evaluations import (
    AnswerDetail,
    AnswerList,
    CandidateDetail,
    CandidateList,
    EvaluationDetail,
    EvaluationList,
    MemberDetail,
    MemberList,
    WeightsView,
)
from .evidence import (
    MeasurementList,
    ScoreList,
    UploadDetail,
    UploadList,
    UploadTokenDetail,
    UploadTokenList,
    UploadTokenRevoke,
)
from .results import DecisionView, HistoryView, RankingView, RobustnessView

__all__ = [
    "AnswerDetail",
    "AnswerList",
    "CandidateDetail",
    "CandidateList",
    "ChecklistList",
    "DecisionView",
    "EvaluationDetail",
    "EvaluationList",
    "HistoryView",
    "MeView",
    "MeasurementList",
    "MemberDetail",
    "MemberList",
    "OfferingDetail",
    "OfferingList",
    "OfferingPriceDetail",
    "OfferingPriceList",
    "RankingView",
    "RobustnessView",
    "ScoreList",
    "UploadDetail",
    "UploadList",
    "UploadTokenDetail",
    "UploadTokenList",
    "UploadTokenRevoke",
    "VendorDetail",
    "VendorList",
    "WeightsView",
]
