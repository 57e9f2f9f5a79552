"""Every relative link of the README and of its topic pages (docs/*.md) leads somewhere.

A link or image to a file must name a file of the repository; a link with ``#anchor`` to a Markdown page
(or to its own page) must name one of that page's headings, slugged as GitHub slugs them.  Web addresses
are not followed (the tests need no network).
"""

import re

import pytest

from conftest import DOC_PAGES, REPO

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text):
    """The text without fenced code blocks and inline code, where brackets are code, not links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page):
    """The anchors of ``page``'s headings, a repeated heading numbered as GitHub numbers it."""
    seen, out = {}, set()
    for line in _prose(page.read_text(encoding="utf-8")).splitlines():
        if m := re.match(r"#{1,6} +(.+?)\s*#*\s*$", line):
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(page):
    return LINK.findall(_prose(page.read_text(encoding="utf-8")))


def test_slugs_follow_github():
    assert slug("The fleet's life simulated, and retirement compared") == \
        "the-fleets-life-simulated-and-retirement-compared"
    assert slug("Why some parts fail sooner: covariates, groups, interval censoring") == \
        "why-some-parts-fail-sooner-covariates-groups-interval-censoring"
    assert slug("`relmodel.units`") == "relmodelunits"


def test_the_readme_links_every_topic_page():
    readme = {target.split("#")[0] for target in links(REPO / "README.md")}
    for page in DOC_PAGES[1:]:
        assert page.relative_to(REPO).as_posix() in readme, f"README.md does not link {page.name}"


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_resolves(page):
    found = links(page)
    bad = []
    for target in found:
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not followed
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists() or REPO not in (dest, *dest.parents):
            bad.append(f"{target}: no such file in the repository")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: {dest.name} has no heading with anchor #{anchor}")
    assert not bad, f"{page.name}: " + "; ".join(bad)
