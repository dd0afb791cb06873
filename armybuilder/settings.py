"""Armybuilder settings: one file, every deployment knob read from the environment.

Environment variables (bad values stop start-up with a message naming the variable):
  DJANGO_DEBUG          true/false (default true, for local use; production sets false)
  DJANGO_SECRET_KEY     required when DJANGO_DEBUG is false
  DJANGO_ALLOWED_HOSTS  comma-separated host names (default: localhost names)
  DJANGO_CONN_MAX_AGE   seconds a database connection is kept for reuse (default 60)
  DATABASE_URL          e.g. postgres://postgres@127.0.0.1:5432/armybuilder
                        (default: SQLite file db.sqlite3 at the repository root)
  DJANGO_ARMYFORGE_URL  where `manage.py sync_armyforge` reads the official army books
                        (default: Army Forge's public address; empty: never ask Army
                        Forge); DJANGO_ARMYFORGE_TIMEOUT and DJANGO_ARMYFORGE_MAX_BYTES
                        bound each request
  EMAIL_HOST            the SMTP server that sends password reset e-mails (default: none,
                        e-mails are printed on standard output), with EMAIL_PORT (587),
                        EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS (true),
                        EMAIL_TIMEOUT (10 s) and DEFAULT_FROM_EMAIL
"""

from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from environs import Env, EnvError
from marshmallow.validate import URL, Range

from factions.caps import MAX_BOOK_BYTES

BASE_DIR = Path(__file__).resolve().parent.parent

env = Env()

try:
    DEBUG = env.bool("DJANGO_DEBUG", default=True)
    SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
    ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
    # Keep connections open between requests (opening one costs more than validating
    # a 50-entry list); health checks drop a connection the database has closed.
    CONN_MAX_AGE = env.int("DJANGO_CONN_MAX_AGE", default=60, validate=lambda n: n >= 0)
    CONN_HEALTH_CHECKS = env.bool("DJANGO_CONN_HEALTH_CHECKS", default=True)
    # PostgreSQL gives up on a statement, or on waiting for a lock, after this many
    # milliseconds: a blocked request answers 503 quickly and frees its worker. Management
    # commands (imports, backups, migrations) get the longer command timeout (0: none).
    DB_STATEMENT_TIMEOUT = env.int("DJANGO_DB_STATEMENT_TIMEOUT", default=5000, validate=Range(min=0))
    DB_LOCK_TIMEOUT = env.int("DJANGO_DB_LOCK_TIMEOUT", default=3000, validate=Range(min=0))
    DB_COMMAND_TIMEOUT = env.int("DJANGO_DB_COMMAND_TIMEOUT", default=0, validate=Range(min=0))
    DATABASES = {
        "default": env.dj_db_url(
            "DATABASE_URL",
            default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
            ssl_require=False,
            conn_max_age=CONN_MAX_AGE,
            conn_health_checks=CONN_HEALTH_CHECKS,
        )
    }
except EnvError as exc:
    raise ImproperlyConfigured(str(exc)) from exc

try:
    CACHE_URL = env.str("CACHE_URL", default="locmem://")
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=not DEBUG)
    SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=0 if DEBUG else 31_536_000)
    THROTTLE_RATES = {  # "off" turns a throttle off (load tests)
        scope: None if rate == "off" else rate
        for scope, rate in {
            "anon": env.str("DJANGO_THROTTLE_ANON", default="600/min"),
            "user": env.str("DJANGO_THROTTLE_USER", default="1200/min"),
            "auth": env.str("DJANGO_THROTTLE_AUTH", default="20/min"),
            "signup": env.str("DJANGO_THROTTLE_SIGNUP", default="10/hour"),
            "password_reset": env.str("DJANGO_THROTTLE_PASSWORD_RESET", default="10/hour"),
            "visitor_lists": env.str("DJANGO_THROTTLE_VISITOR_LISTS", default="60/hour"),
            # PDFs drawn (not those served from the cache) per client address.
            "pdf": env.str("DJANGO_THROTTLE_PDF", default="30/min"),
            # Share links read from Army Forge, per player (or visitor's address).
            "armyforge_imports": env.str("DJANGO_THROTTLE_ARMYFORGE_IMPORTS", default="6/min"),
        }.items()
    }
    # How many proxies in front of the site append to X-Forwarded-For: the client address
    # is the one the outermost of them saw. 0: the connection's own address, and any
    # X-Forwarded-For (which a client can write) is ignored.
    AXES_FAILURE_LIMIT = env.int("DJANGO_LOGIN_FAILURES", default=5, validate=Range(min=1))
    LOGIN_COOLOFF_MINUTES = env.int("DJANGO_LOGIN_COOLOFF_MINUTES", default=15, validate=Range(min=1))
    TRUSTED_PROXIES = env.int("DJANGO_TRUSTED_PROXIES", default=0, validate=Range(min=0))
    # X-Forwarded-Proto says the request came over https only when a proxy in front of the
    # site writes it: trusted when one is declared, never by default (a client can send it).
    TRUST_PROXY_SSL_HEADER = env.bool("DJANGO_SECURE_PROXY_SSL_HEADER", default=TRUSTED_PROXIES > 0)
    # Army Forge, where `sync_armyforge` reads the official books: each request waits at
    # most the timeout (seconds) and reads at most the size cap (bytes; by default the
    # cap of an army book file, factions/caps.py; a real book is < 1 MB).
    # Empty: the site never asks Army Forge (no sync, no share links).
    web_address = URL(schemes={"http", "https"}, require_tld=False, error="not an http:// or https:// address")
    ARMYFORGE_URL = env.str(
        "DJANGO_ARMYFORGE_URL",
        default="https://army-forge.onepagerules.com",
        validate=lambda value: value == "" or web_address(value),
    ).rstrip("/")
    ARMYFORGE_TIMEOUT = env.float("DJANGO_ARMYFORGE_TIMEOUT", default=15, validate=Range(min=0, min_inclusive=False))
    # A sync started from the admin's page stops starting books after this long (what is
    # left is read by syncing again), so that the request ends well within the server's.
    ARMYFORGE_ADMIN_SYNC_SECONDS = env.float(
        "DJANGO_ARMYFORGE_ADMIN_SYNC_SECONDS", default=20, validate=Range(min=0, min_inclusive=False)
    )
    ARMYFORGE_MAX_BYTES = env.int("DJANGO_ARMYFORGE_MAX_BYTES", default=MAX_BOOK_BYTES, validate=Range(min=1))
    # Share links the whole site reads from Army Forge at once (each for a few seconds at
    # most): one more is refused with "try again in a moment", so that an Army Forge that
    # is down cannot hold every worker. Keep it below the number of workers.
    ARMYFORGE_SHARE_IMPORTS = env.int("DJANGO_ARMYFORGE_SHARE_IMPORTS", default=1, validate=Range(min=1))
    # Large printouts (more than downloads.LARGE_PRINTOUT entries) the site draws at once.
    LARGE_PRINTOUTS_AT_ONCE = env.int("DJANGO_LARGE_PRINTOUTS", default=1, validate=Range(min=1))
    # E-mail (password resets): through EMAIL_HOST when it is set, else printed on standard
    # output, which is enough on a developer's machine.
    EMAIL_HOST = env.str("EMAIL_HOST", default="")
    EMAIL_PORT = env.int("EMAIL_PORT", default=587, validate=Range(min=1, max=65535))
    EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
    EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
    EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
    # An SMTP server that does not answer holds the sending thread this long at most.
    EMAIL_TIMEOUT = env.float("EMAIL_TIMEOUT", default=10, validate=Range(min=0, min_inclusive=False))
    DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="armybuilder@localhost")
except EnvError as exc:
    raise ImproperlyConfigured(str(exc)) from exc

if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false.")
    # Only ever used on a developer's machine (DEBUG on).
    SECRET_KEY = "django-insecure-local-development-only"
if not all(host.strip() for host in ALLOWED_HOSTS):
    raise ImproperlyConfigured("DJANGO_ALLOWED_HOSTS has an empty host name.")

DATABASES["default"]["ATOMIC_REQUESTS"] = False

EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_TIMEOUT = 10  # seconds: a mail server that does not answer must not hold a worker for long


def _serving() -> bool:
    """Whether this process answers requests (a WSGI server, runserver, the tests) rather
    than running a management command."""
    import sys

    name = Path(sys.argv[0]).name if sys.argv else ""
    return name != "manage.py" or sys.argv[1:2] in (["runserver"], ["test"])


if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    statement, lock = (DB_STATEMENT_TIMEOUT, DB_LOCK_TIMEOUT) if _serving() else (DB_COMMAND_TIMEOUT,) * 2
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (
        f"-c statement_timeout={statement} -c lock_timeout={lock}"
    )


def _cache(url: str) -> dict:
    if url.startswith(("redis://", "rediss://", "unix://")):
        # Redis down is not an outage: a local cache stands in (armybuilder/cache.py).
        return {"BACKEND": "armybuilder.cache.FailSoftRedisCache", "LOCATION": url}
    if url.startswith("locmem://"):
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": url[9:] or "armybuilder"}
    if url.startswith("dummy://"):
        return {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    raise ImproperlyConfigured(f'CACHE_URL "{url}" is not redis://…, locmem:// or dummy://')


CACHES = {"default": _cache(CACHE_URL)}

# Production (DEBUG off): everything `manage.py check --deploy` asks for.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if TRUST_PROXY_SSL_HEADER:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Let the health check answer plain http on the private network of the load balancer.
SECURE_REDIRECT_EXEMPT = [r"^api/health/$"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"stdout": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout", "formatter": "plain"}},
    "root": {"handlers": ["stdout"], "level": "INFO"},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from our own static files, no CDN
    "axes",  # failed log-ins, per account and per address (see AXES_* below)
    "factions",
    # After factions: it adds the Army Forge pages to the army books' admin.
    "armybuilder.armyforge",
    "armybuilder.lists",
    "armybuilder.events",
    "armybuilder.accounts",
    "armybuilder.backups",
    "armybuilder.api",  # connects token revocation to accounts (api/apps.py)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "armybuilder.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "armybuilder.middleware.RequestLimitsMiddleware",
    "armybuilder.middleware.DatabaseUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "armybuilder.middleware.NotAllowedPageMiddleware",
    "armybuilder.middleware.MissingMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
    "armybuilder.security.DeviceCookieMiddleware",
]

# Password guessing: after AXES_FAILURE_LIMIT failed log-ins an account from one address,
# and an address whatever it tries, are locked for the cool-off time, on every log-in path
# (site, admin, API token).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "armybuilder.security.LoginBackoffBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# An account is locked only together with the address guessing at it (a stranger cannot
# lock someone else out), an address whatever it tries; guesses at one account from many
# addresses are slowed instead (armybuilder/security.py LoginBackoffBackend).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "armybuilder.ratelimit.client_address"
AXES_USERNAME_CALLABLE = "armybuilder.security.login_username"
AXES_LOCKOUT_CALLABLE = "armybuilder.security.locked_out"
AXES_SENSITIVE_PARAMETERS = ["password"]
AXES_VERBOSE = False
# A log-in that gets in leaves its browser a signed device cookie (armybuilder/security.py):
# a log-in with it is spared the account's slower pace and the lockouts above (a stranger
# sharing the owner's address could set those off), and is held to its own
# AXES_FAILURE_LIMIT failures, after which the cookie is locked for the cool-off time.
AXES_WHITELIST_CALLABLE = "armybuilder.security.axes_spares"
DEVICE_COOKIE_NAME = "device"
DEVICE_COOKIE_AGE = 365 * 24 * 3600  # seconds
DEVICE_COOKIE_SECURE = SESSION_COOKIE_SECURE

ROOT_URLCONF = "armybuilder.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "armybuilder.web.context.nav",
            ],
        },
    },
]

WSGI_APPLICATION = "armybuilder.wsgi.application"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

LOGIN_URL = "login"
CSRF_FAILURE_VIEW = "armybuilder.errors.csrf_failure"  # a page in the site's layout, like the other errors
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_COOLOFF_MINUTES)
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"  # filled by `manage.py collectstatic`
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns about a missing one on every start
WHITENOISE_USE_FINDERS = DEBUG  # while developing, serve straight from static/
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed files in production (run collectstatic); plain files locally.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Request bodies larger than this are refused with 413 before they are read (an army
# book is a few hundred KB at most; a 500-entry list about 60 KB).
MAX_REQUEST_BODY = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY
FILE_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY

REST_FRAMEWORK = {
    "NUM_PROXIES": TRUSTED_PROXIES,  # the throttles' client address (see TRUSTED_PROXIES)
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "armybuilder.api.exceptions.exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": ["armybuilder.api.throttles.AnonThrottle", "armybuilder.api.throttles.UserThrottle"],
    "DEFAULT_RENDERER_CLASSES": [
        "armybuilder.api.fastjson.ORJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "armybuilder.api.fastjson.ORJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Armybuilder API",
    "DESCRIPTION": "Army lists for the Age of Fantasy family of games: catalogue, validation and lists.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {"BookSourceEnum": "factions.models.BookSource"},
    # The error answers every endpoint shares, and the rulesets and factions as enums.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "armybuilder.api.schema.postprocess"],
}
