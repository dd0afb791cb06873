"""The site as a WSGI application, `armybuilder.wsgi:application` (gunicorn serves it:
see the README). The site has no ASGI entry point: nothing in it is asynchronous."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armybuilder.settings")

application = get_wsgi_application()
