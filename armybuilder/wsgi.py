"""The site as a WSGI application, `armybuilder.wsgi:application` (gunicorn serves it:
see the README). The site has no ASGI entry point: nothing in it is asynchronous."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armybuilder.settings")


def static_files_collected() -> None:
    """In production the pages name their static files by the hashes `collectstatic`
    writes down (settings.STORAGES): without them every page would be a 500. The site
    stops at start-up instead, naming the command."""
    from django.conf import settings
    from django.contrib.staticfiles.storage import staticfiles_storage

    manifest_name = getattr(staticfiles_storage, "manifest_name", None)
    if settings.DEBUG or manifest_name is None:
        return
    if not (Path(settings.STATIC_ROOT) / manifest_name).exists():
        raise ImproperlyConfigured(
            f"The static files are not collected in {settings.STATIC_ROOT}: run "
            "`.venv/bin/python manage.py collectstatic --noinput` before starting the site."
        )


application = get_wsgi_application()
static_files_collected()
