"""Create (or show, or rotate) the personal API token of a user, for scripts using /api/v1/."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = (
        "Print the personal API token of USERNAME, creating it if needed; --rotate replaces it. "
        "Send it as 'Authorization: Token <key>'. It acts with the user's roles."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--rotate", action="store_true", help="Delete the current token and issue a new one."
        )

    @transaction.atomic
    def handle(self, *args, username, rotate, **options):
        User = get_user_model()
        try:
            user = User.objects.get(**{User.USERNAME_FIELD: username})
        except User.DoesNotExist:
            raise CommandError(f"No user named {username!r}.") from None
        if not user.is_active:
            raise CommandError(f"The user {username!r} is inactive.")
        if rotate:
            Token.objects.filter(user=user).delete()
        token, created = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)
        if created:
            self.stderr.write(f"Created the API token of {username}.")
