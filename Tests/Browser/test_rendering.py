"""What a reply shows beyond plain markdown: code highlighted on the server, formulas typeset by KaTeX (their TeX
source without script), and the wrap toggle of a code block."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from parley_pages import assert_accessible, sign_up, start_conversation, wait_for_reply
from test_pages import reload_until_complete

FORMULA = r"\bar x = \frac{1}{n}\sum_{i=1}^{n} x_i"


def computed(browser, element, prop):
    return browser.execute_script("return getComputedStyle(arguments[0])[arguments[1]]", element, prop)


def test_code_is_highlighted_and_formulas_typeset(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "show me code and math")
    reply = wait_for_reply(browser)
    # The server marked the Swift block's tokens; their colours differ from the text's.
    keyword = reply.find_element(By.CSS_SELECTOR, "pre[data-lang=swift] code .hl-keyword")
    string = reply.find_element(By.CSS_SELECTOR, "pre[data-lang=swift] code .hl-string")
    assert keyword.text == "let" and string.text == '"Hello from Parley"'
    plain = computed(browser, reply.find_element(By.CSS_SELECTOR, "pre[data-lang=swift] code"), "color")
    assert computed(browser, keyword, "color") != plain and computed(browser, string, "color") != plain
    # KaTeX typeset the formula: its own markup, its fonts loaded, the source kept for copying and screen readers.
    formula = WebDriverWait(browser, 10).until(lambda b: reply.find_element(By.CSS_SELECTOR, "span.math-inline .katex"))
    assert "KaTeX_Main" in computed(browser, formula.find_element(By.CSS_SELECTOR, ".katex-html"), "fontFamily")
    assert formula.find_element(By.CSS_SELECTOR, "annotation").get_attribute("textContent") == FORMULA
    assert WebDriverWait(browser, 10).until(
        lambda b: b.execute_script("return document.fonts.check('16px KaTeX_Main')"))
    assert not reply.find_elements(By.CSS_SELECTOR, "code.math")
    assert "\\frac" not in reply.text
    assert_accessible(browser, "a reply with highlighted code and a typeset formula")


def test_a_code_block_wraps_on_request(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "wrap")
    reply = wait_for_reply(browser)
    block = reply.find_element(By.CSS_SELECTOR, "pre[data-lang=swift]")
    assert computed(browser, block, "whiteSpace") == "pre" and computed(browser, block, "overflowX") == "auto"
    toggle = block.find_element(By.CSS_SELECTOR, "button.wrap")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true" and computed(browser, block, "whiteSpace") == "pre-wrap"
    toggle.click()
    assert computed(browser, block, "whiteSpace") == "pre"


def test_without_javascript_the_formula_source_shows(browsers, server):
    browser = browsers.new(javascript=False)
    sign_up(browser, server)
    start_conversation(browser, "math without script")
    reply = reload_until_complete(browser)
    source = reply.find_element(By.CSS_SELECTOR, "code.math.math-inline")
    assert source.text == FORMULA
    assert reply.find_element(By.CSS_SELECTOR, "pre code .hl-keyword").text == "let"
