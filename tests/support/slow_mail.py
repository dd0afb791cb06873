"""A mail backend as slow as a far SMTP server (the reset timing test, issue 37)."""

import time

from django.core.mail.backends.locmem import EmailBackend

DELAY = 1.5  # seconds a send takes


class SlowBackend(EmailBackend):
    def send_messages(self, messages):
        time.sleep(DELAY)
        return super().send_messages(messages)
