"""Django settings: one module, driven by environment variables (see README, "Configuration")."""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable ("1", "true", "yes", "on" are true)."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    """Read a comma-separated environment variable as a list of non-empty items."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", default=False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and not env_bool("POLICYEDITOR_INSECURE_DEV_KEY"):
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off (see README).")
    # Development only: a fixed key so sessions survive restarts of `make run`.
    SECRET_KEY = "django-insecure-dev-only-key-do-not-use-in-production-7f3a9c"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "drf_spectacular",
    "csp",
    "axes",
    "django_tasks",
    "django_tasks_db",
    "policyeditor.core",
    "policyeditor.teams",
    "policyeditor.schemalib",
    "policyeditor.editor",
    "policyeditor.api",
    "policyeditor.review",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before CSRF: the CSRF check reads the form body, which over 3 MiB would be a bare 400.
    "policyeditor.core.middleware.BodySizeLimitMiddleware",
    # Before CSRF too: the CSRF check decodes the form with the charset the request declares.
    "policyeditor.core.charset.FormCharsetMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    # Whose request this is, for the per-user share of the evaluation workers (core/fair_share.py).
    "policyeditor.core.fair_share.FairShareMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes requires: turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "policyeditor.urls"

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
                "policyeditor.core.context_processors.navigation",
                "policyeditor.review.context_processors.reviews",
            ],
            "builtins": ["template_partials.templatetags.partials"],
        },
    }
]

WSGI_APPLICATION = "policyeditor.wsgi.application"
ASGI_APPLICATION = "policyeditor.asgi.application"

DATA_DIR = Path(os.environ.get("POLICYEDITOR_DATA_DIR", BASE_DIR / "var"))
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite creates the file but not its folder: a fresh clone has no var/ yet.
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # Connections persist as they do for PostgreSQL (CONN_MAX_AGE): opening one and running the
    # PRAGMAs below cost about 0.7 ms of every request (gunicorn, /healthz: 1.8 -> 1.1 ms).
    # Safe with SQLite: Django keeps one connection per thread and autocommits; the engine's
    # worker processes are spawned, never forked with a connection open.
    # WAL + a busy timeout so concurrent writers wait instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # The test database is a file too, one per test process: Django's default in-memory test
    # database runs in shared-cache mode, where a request reading a table that another live-server
    # thread is writing fails at once with "database table is locked" instead of waiting as the
    # file database does in production.
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"policyeditor-test-{os.getpid()}.sqlite3")
    }

# A cache in the database shared by every gunicorn worker, so API throttling is one limit for
# the whole server (not one per process) and cached test-case results survive restarts.
# The migration core/0001 creates its table, so `migrate` is all any deployment needs.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "policyeditor_cache",
        "TIMEOUT": 3600,
        "OPTIONS": {"MAX_ENTRIES": 5000},
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Login throttling (see README, "Security"): django-axes counts failures in the database, so every
# gunicorn worker shares the count and a restart does not reset it; the lockout is per username and
# address together, so nobody can lock another user out from elsewhere.
AUTHENTICATION_BACKENDS = [
    # One address failing for many usernames is paused too (core/throttling.py).
    "policyeditor.core.throttling.AddressLockoutBackend",
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
POLICYEDITOR_LOGIN_ADDRESS_FAILURE_LIMIT = int(os.environ.get("LOGIN_ADDRESS_FAILURE_LIMIT", "20"))
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "policyeditor.core.throttling.lockout_response"
AXES_CLIENT_IP_CALLABLE = "policyeditor.core.throttling.client_ip"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG or env_bool("POLICYEDITOR_PLAIN_STATIC")
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# The API server's own request limit (3 MiB); a larger body gets a clear 413, never a 500.
# Background work (impact runs) on Django's Tasks API, queued in the database: no broker to run,
# the same on SQLite and PostgreSQL; `manage.py db_worker` processes take the tasks (docs/architecture.md).
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# Uploaded dumps and their chunk files (default DATA_DIR/impact); every worker must see the folder.
POLICYEDITOR_IMPACT_DIR = os.environ.get("POLICYEDITOR_IMPACT_DIR") or None

DATA_UPLOAD_MAX_MEMORY_SIZE = 3 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 3 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 5000

# Security headers and cookies; strict when DEBUG is off (`manage.py check --deploy` is clean).
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads no cookie (token is on <body>), but keep the default
if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# No inline script anywhere: htmx and the editor run from static files.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
    }
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
# API rate limits (docs/security.md): per token, and per user over all their tokens; "off" disables.
_api_rate = os.environ.get("POLICYEDITOR_API_THROTTLE_RATE", "600/minute")
POLICYEDITOR_API_THROTTLE_RATE: str | None = (
    None if _api_rate.lower() in {"off", "none", ""} else _api_rate
)
POLICYEDITOR_API_USER_THROTTLE_RATE = os.environ.get("POLICYEDITOR_API_USER_THROTTLE_RATE") or None

# Fair use (docs/security.md): engine calls one user may run at once across every gunicorn worker,
# and how long a call past that waits for a slot before the 429.
POLICYEDITOR_EVAL_PER_USER = int(os.environ.get("POLICYEDITOR_EVAL_PER_USER", "2"))
POLICYEDITOR_EVAL_QUEUE_SECONDS = float(os.environ.get("POLICYEDITOR_EVAL_QUEUE_SECONDS", "3"))

# Storage quotas (editor/quotas.py): unset ones keep the defaults there; 0 is no limit.
for _scope in ("USER", "TEAM"):
    for _what in ("DRAFTS", "REVISIONS", "BYTES"):
        _name = f"POLICYEDITOR_QUOTA_{_scope}_{_what}"
        if os.environ.get(_name):
            globals()[_name] = int(os.environ[_name])
POLICYEDITOR_API_TOKEN_DAYS = int(os.environ.get("POLICYEDITOR_API_TOKEN_DAYS", "90"))

SPECTACULAR_SETTINGS = {
    "TITLE": "policyeditor API",
    "DESCRIPTION": "Validate, evaluate and manage Kubernetes admission policy drafts.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
