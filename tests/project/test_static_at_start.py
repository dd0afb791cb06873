"""A production start without `collectstatic` stops at once with a message naming the
command, instead of a 500 on every page (issue 37)."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from armybuilder.wsgi import static_files_collected


@pytest.fixture
def production(settings, tmp_path):
    from django.contrib.staticfiles.storage import staticfiles_storage
    from django.utils.functional import empty

    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    staticfiles_storage._wrapped = empty  # read the storage setting anew
    yield tmp_path
    staticfiles_storage._wrapped = empty


def test_a_production_start_without_collected_static_files_names_the_command(production):
    with pytest.raises(ImproperlyConfigured, match=r"manage\.py collectstatic --noinput"):
        static_files_collected()


def test_a_production_start_with_collected_static_files_goes_on(production):
    (production / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')
    static_files_collected()  # no error


def test_a_developer_start_needs_no_collected_static_files(settings, tmp_path):
    settings.DEBUG = True
    settings.STATIC_ROOT = tmp_path
    static_files_collected()  # plain files straight from static/
