"""Page-side mapping of domain errors no view handled itself."""

from django.shortcuts import render

from .services.errors import EvaluationDecided


class EvaluationDecidedMiddleware:
    """A write refused because the evaluation is decided: a 409 page saying so (the API maps
    the same error to a JSON 409 in its exception handler)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, EvaluationDecided):
            return render(
                request,
                "portal/evaluation_decided.html",
                {"message": exception.messages[0]},
                status=409,
            )
        return None
