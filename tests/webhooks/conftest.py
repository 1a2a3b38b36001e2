"""Webhook tests run with a known app secret and verify token."""
import pytest

from tests.templates.support import template_settings


@pytest.fixture
def settings(settings):
    return template_settings(settings)
