"""The admin's change forms as a browser sends them, for tests that edit in the admin."""

from html.parser import HTMLParser

from django.urls import reverse


class ChangeForm(HTMLParser):
    """What a browser sends when it submits the admin's change form as the page shows it:
    every named input (checkboxes when ticked), select and textarea, inline rows and
    management forms included."""

    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.data: dict[str, list[str]] = {}
        self.select: str | None = None
        self.textarea: str | None = None

    def add(self, name: str, value: str) -> None:
        self.data.setdefault(name, []).append(value)

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
        if not self.inside or not attrs.get("name") and tag != "option":
            return
        if tag == "input" and attrs.get("type") not in ("submit", "button", "file"):
            if attrs.get("type") not in ("checkbox", "radio") or "checked" in attrs:
                self.add(attrs["name"], attrs.get("value", "on" if attrs.get("type") == "checkbox" else ""))
        elif tag == "select":
            self.select = attrs["name"]
        elif tag == "option" and self.select and "selected" in attrs:
            self.add(self.select, attrs.get("value", ""))
        elif tag == "textarea":
            self.textarea = attrs["name"]
            self.add(self.textarea, "")

    def handle_data(self, data):
        if self.textarea:
            self.data[self.textarea][-1] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            if self.textarea and self.data[self.textarea][-1].startswith("\n"):
                self.data[self.textarea][-1] = self.data[self.textarea][-1][1:]  # as browsers do
            self.textarea = None


def change_form(client, obj) -> tuple[str, dict[str, list[str]]]:
    """The change page's URL and the form data a browser would send from it."""
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    page = client.get(url)
    assert page.status_code == 200
    form = ChangeForm(f"{obj._meta.model_name}_form")
    form.feed(page.content.decode())
    assert form.data, "no change form on the page"
    return url, form.data


def save(client, url: str, data: dict[str, list[str]]):
    return client.post(url, {**data, "_save": "Save"})
