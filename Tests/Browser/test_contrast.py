"""WCAG AA contrast of Parley's colours, light and dark, computed from the custom properties in Public/app.css.

Text needs 4.5:1 against its background (WCAG 2.1, 1.4.3); these pairs are every text colour the stylesheet puts
on every background it puts it on. The numbers are printed with `pytest -s`.
"""
import os
import re

import pytest

CSS = os.path.join(os.path.dirname(__file__), "..", "..", "Public", "app.css")

# (text, background) pairs by custom property name, as the stylesheet uses them.
PAIRS = [
    ("fg", "bg"), ("fg", "panel"), ("fg", "user"), ("fg", "code"),  # text, buttons, your messages, code
    ("muted", "bg"), ("muted", "panel"), ("muted", "user"), ("muted", "code"),  # times, hints, code language labels
    ("accent", "bg"), ("accent", "panel"),  # links, pinned tags
    ("accent-fg", "accent"),  # primary buttons
    ("danger", "bg"), ("danger", "panel"), ("danger", "user"),  # errors, danger buttons, a stopped status
]


def palettes():
    """The light palette (the first :root block) and the dark one (the :root inside prefers-color-scheme: dark)."""
    text = open(CSS, encoding="utf-8").read()
    light = re.search(r":root\s*\{([^}]*)\}", text).group(1)
    dark = re.search(r"@media \(prefers-color-scheme: dark\)\s*\{\s*:root\s*\{([^}]*)\}", text).group(1)

    def variables(block):
        return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})", block))
    light_vars = variables(light)
    return {"light": light_vars, "dark": {**light_vars, **variables(dark)}}


def fixed_pairs():
    """Colour pairs written as literals: the banner and highlighted search words, light and dark."""
    text = open(CSS, encoding="utf-8").read()
    banner = re.search(r"\.banner \{ background: (#\w+); color: (#\w+)", text)
    dark_banner = re.search(r"\.banner \{ background: (#\w+); color: (#\w+); border-color", text)
    mark = re.search(r"mark \{ background: (#\w+)", text)
    dark_mark = re.search(r"mark \{ background: (#\w+); \} \}", text)
    light, dark = palettes()["light"], palettes()["dark"]
    return [("light banner", banner.group(2), banner.group(1)), ("dark banner", dark_banner.group(2), dark_banner.group(1)),
            ("light mark", light["fg"], mark.group(1)), ("dark mark", dark["fg"], dark_mark.group(1))]


def luminance(hex_colour):
    """Relative luminance (WCAG 2.1)."""
    digits = hex_colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(digit * 2 for digit in digits)
    channels = []
    for index in (0, 2, 4):
        value = int(digits[index:index + 2], 16) / 255
        channels.append(value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4)
    red, green, blue = channels
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(foreground, background):
    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_the_contrast_formula():
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0
    assert round(contrast("#777777", "#ffffff"), 2) == 4.48


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_colour_meets_wcag_aa_in_both_schemes(scheme):
    palette = palettes()[scheme]
    ratios = {f"{text} on {background}": contrast(palette[text], palette[background]) for text, background in PAIRS}
    for name, ratio in ratios.items():
        print(f"{scheme}: {name} {ratio:.2f}:1")
    assert {name: round(ratio, 2) for name, ratio in ratios.items() if ratio < 4.5} == {}


def test_banners_and_highlights_meet_wcag_aa():
    ratios = {name: contrast(text, background) for name, text, background in fixed_pairs()}
    print(ratios)
    assert {name: round(ratio, 2) for name, ratio in ratios.items() if ratio < 4.5} == {}
