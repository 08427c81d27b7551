"""URL configuration of the portal."""

from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from .views import evaluations

urlpatterns = [
    path("", evaluations.evaluation_list, name="evaluation-list"),
    path("evaluations/<int:pk>/", evaluations.evaluation_detail, name="evaluation-detail"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/v1/", include("portal.api.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("healthz/", evaluations.healthz, name="healthz"),
    path("admin/", admin.site.urls),
]

if settings.DEBUG:
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
