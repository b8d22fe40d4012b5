"""Documents in a real browser: chosen in the composer, each uploaded at once and read by the server (its chip says
"reading…" while Send waits and says why), sent with a question, shown as chips in it, and cited by the reply, whose
Sources list and citations open the document at its page. Also: a document the server refuses, removing chips, images
and documents dropped or pasted together, and the plain form without JavaScript. The model is the mock upstream's
`mock-cite`, which cites every numbered source it is given."""
import os
import re
import shutil
import tempfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from mock_upstream import parley_with_mock_upstream
from parley_pages import assert_accessible, replies, sign_up, start_conversation, until, wait_for_reply
from pdf_fixture import pdf

PAGES = ["The first page of the report.", "Page two: the budget is 42 zebras.", "Page three closes the report."]
NOTES = "Meeting notes: the zebras arrive on Tuesday.\n"

# Records every state a document chip shows, with Send's state at that moment: a chip may read for half a second.
RECORD_CHIP_STATES = """
    window.chipStates = [];
    const send = document.getElementById('send');
    new MutationObserver(() => {
        for (const chip of document.querySelectorAll('.document-tray .document-chip')) {
            window.chipStates.push({name: chip.querySelector('.document-name').textContent, status: chip.dataset.status,
                                    detail: chip.querySelector('.document-detail').textContent,
                                    sendDisabled: send.disabled, sendDescribedBy: send.getAttribute('aria-describedby')});
        }
    }).observe(document.querySelector('.document-tray'),
               {subtree: true, childList: true, attributes: true, characterData: true});
"""

# Fetches a URL with the page's cookies; answers its status and media type.
FETCH = """
    const done = arguments[arguments.length - 1];
    fetch(arguments[0], {credentials: 'same-origin'})
        .then((response) => done([response.status, response.headers.get('content-type')]));
"""


@pytest.fixture()
def citing_server(data_dir):
    """Parley whose provider is the mock upstream (and so offers `mock-cite`)."""
    with parley_with_mock_upstream(data_dir) as url:
        yield url


@pytest.fixture()
def write_file():
    """Writes a file of the test's (text or bytes) under its name in a fresh folder; returns its path."""
    folder = tempfile.mkdtemp(prefix="parley-documents-")

    def write(name, content):
        path = os.path.join(folder, name)
        with open(path, "wb") as file:
            file.write(content if isinstance(content, bytes) else content.encode())
        return path
    yield write
    shutil.rmtree(folder, ignore_errors=True)


def start_citing_conversation(browser, server):
    """Signs up and starts a conversation with `mock-cite`, its first reply done."""
    sign_up(browser, server)
    Select(browser.find_element(By.CSS_SELECTOR, "#new-conversation select[name=model]")).select_by_value("mock-cite")
    start_conversation(browser, "Hello")
    wait_for_reply(browser)


def choose(browser, *paths):
    """Chooses files in the documents input the Attach button opens (a test cannot drive the native file dialog)."""
    file_input = browser.find_element(By.CSS_SELECTOR, '#composer input[type="file"][accept*=".pdf"]')
    assert not file_input.get_attribute("name")  # the script's uploads replace the form's files
    browser.execute_script("arguments[0].hidden = false", file_input)
    file_input.send_keys("\n".join(paths))
    browser.execute_script("arguments[0].hidden = true", file_input)


def chips(browser):
    """The composer's document chips by document name."""
    return {chip.find_element(By.CSS_SELECTOR, ".document-name").text: chip
            for chip in browser.find_elements(By.CSS_SELECTOR, ".document-tray .document-chip")}


def settled(browser, count):
    """Whether `count` chips are there and none is still uploading or being read."""
    shown = chips(browser)
    return len(shown) == count and all(chip.get_attribute("data-status") in ("ready", "failed")
                                       for chip in shown.values())


def detail(chip):
    """What a chip says of its document: uploading…, reading…, its type and pages or size, or why it failed."""
    return chip.find_element(By.CSS_SELECTOR, ".document-detail").text


def sent_documents(article):
    """A question's document chips: each one's text and link."""
    return [(link.get_attribute("textContent"), link.get_attribute("href"), link.get_attribute("target"))
            for link in article.find_elements(By.CSS_SELECTOR, "ul.documents a")]


def sources(reply):
    """A reply's Sources list: each item's text and link."""
    return [(link.text, link.get_attribute("href")) for link in reply.find_elements(By.CSS_SELECTOR, "ol.sources a")]


def opened_url(browser, before):
    """The address shown after a link was followed: in the tab a link opened, if one did, else in this one."""
    opened = [handle for handle in browser.window_handles if handle not in before]
    if opened:
        browser.switch_to.window(opened[0])
    return browser.current_url


def test_documents_are_read_then_sent_and_the_reply_cites_them_with_sources(browser, citing_server, write_file):
    start_citing_conversation(browser, citing_server)
    report = write_file("report.pdf", pdf(PAGES))
    notes = write_file("notes.txt", NOTES)
    assert not browser.find_element(By.CSS_SELECTOR, ".document-tray").is_displayed()
    browser.execute_script(RECORD_CHIP_STATES)
    choose(browser, report, notes)

    # Each chip shows its upload, then "reading…" while Send waits and says why, then what the document is.
    until(browser, lambda b: settled(b, 2))
    states = browser.execute_script("return window.chipStates")
    reading = [state for state in states if state["status"] == "reading"]
    assert {state["name"] for state in reading} == {"report.pdf", "notes.txt"}, states
    assert all(state["detail"] == "reading…" and state["sendDisabled"] and state["sendDescribedBy"] == "document-wait"
               for state in reading), reading
    shown = chips(browser)
    assert [chip.get_attribute("data-status") for chip in shown.values()] == ["ready", "ready"]
    assert detail(shown["report.pdf"]) == "PDF · 3 pages"
    assert detail(shown["notes.txt"]) == f"Text · {len(NOTES.encode())} bytes"
    assert shown["notes.txt"].find_element(By.CSS_SELECTOR, ".remove").get_attribute("aria-label") == "Remove notes.txt"
    send = browser.find_element(By.ID, "send")
    assert send.is_enabled() and send.get_attribute("aria-describedby") is None
    assert not browser.find_element(By.ID, "document-wait").is_displayed()
    assert len(browser.find_elements(By.CSS_SELECTOR, '#composer input[type="hidden"][name="document_id"]')) == 2
    assert_accessible(browser, "the composer with documents attached")

    browser.find_element(By.ID, "content").send_keys("How many zebras are in the budget?")
    send.click()
    until(browser, lambda b: len(replies(b)) == 2)
    reply = wait_for_reply(browser)
    question = browser.find_elements(By.CSS_SELECTOR, "article.message.user")[-1]
    live_documents = sent_documents(question)
    assert [text for text, _, _ in live_documents] == [
        "report.pdf PDF · 3 pages", f"notes.txt Text · {len(NOTES.encode())} bytes"]
    assert all(re.search(r"/documents/\d+$", href) and target == "_blank" for _, href, target in live_documents)
    assert not chips(browser)  # the tray emptied after sending
    assert not browser.find_elements(By.CSS_SELECTOR, '#composer input[name="document_id"]')

    # The reply cites its numbered sources; the Sources list under it links each to its document, a PDF's at its page.
    live_sources = sources(reply)
    assert live_sources, reply.get_attribute("outerHTML")
    for number, (text, href) in enumerate(live_sources, start=1):
        assert text.startswith(f"[{number}] ")
        page = re.search(r"^\[\d+\] report\.pdf, page (\d)$", text)
        assert page or text == f"[{number}] notes.txt", text
        assert href.endswith(f"#page={page.group(1)}" if page else live_documents[1][1])
    assert any(text.startswith("[") and "report.pdf, page 2" in text for text, _ in live_sources)
    citations = [link.get_attribute("href") for link in reply.find_elements(By.CSS_SELECTOR, ".content a.citation")]
    assert citations == [href for _, href in live_sources]

    # A reload shows the same, rendered by the server.
    browser.refresh()
    reply = wait_for_reply(browser)
    assert sent_documents(browser.find_elements(By.CSS_SELECTOR, "article.message.user")[-1]) == live_documents
    assert sources(reply) == live_sources
    assert_accessible(browser, "a reply citing documents")

    # A citation opens its document at the page (the browser's PDF viewer reads `#page=`); the document is the PDF.
    href = next(href for text, href in live_sources if "page 2" in text)
    citation = reply.find_element(By.CSS_SELECTOR, f'.content a.citation[href="{href.removeprefix(citing_server)}"]')
    assert citation.text == str(next(number for number, (_, link) in enumerate(live_sources, start=1) if link == href))
    assert browser.execute_async_script(FETCH, href) == [200, "application/pdf"]
    before = set(browser.window_handles)
    citation.click()
    until(browser, lambda b: opened_url(b, before) == href)


def test_a_refused_document_says_why_and_chips_can_be_removed(browser, citing_server, write_file):
    start_citing_conversation(browser, citing_server)
    fake = write_file("fake.pdf", "This is not a PDF at all.")
    notes = write_file("notes.txt", NOTES)
    program = write_file("tool.exe", b"MZ\x90\x00")
    choose(browser, fake, notes, program)

    # The browser refuses what no server would read; the server refuses a PDF that is not one, and the chip says why.
    note = browser.find_element(By.CSS_SELECTOR, ".document-note")
    assert note.is_displayed() and note.text.startswith("tool.exe is not a document Parley reads")
    until(browser, lambda b: settled(b, 2))
    failed, ready = chips(browser)["fake.pdf"], chips(browser)["notes.txt"]
    assert failed.get_attribute("data-status") == "failed" and ready.get_attribute("data-status") == "ready"
    assert detail(failed) and not detail(failed).startswith("The upload failed"), detail(failed)  # the server's words
    send = browser.find_element(By.ID, "send")
    assert send.is_enabled()  # a failed document is not sent, and does not hold the others back
    fields = browser.find_elements(By.CSS_SELECTOR, '#composer input[type="hidden"][name="document_id"]')
    assert len(fields) == 1
    document_id = fields[0].get_attribute("value")
    assert browser.execute_async_script(FETCH, f"/api/documents/{document_id}")[0] == 200
    assert_accessible(browser, "the composer with a refused document")

    # Removing: the refused one just goes; the stored one is deleted on the server first. Focus goes to Attach.
    failed.find_element(By.CSS_SELECTOR, ".remove").click()
    until(browser, lambda b: list(chips(b)) == ["notes.txt"])
    ready.find_element(By.CSS_SELECTOR, ".remove").click()
    until(browser, lambda b: not chips(b))
    assert not browser.find_element(By.CSS_SELECTOR, ".document-tray").is_displayed()
    assert browser.switch_to.active_element.get_attribute("class") == "attach-documents"
    assert browser.execute_async_script(FETCH, f"/api/documents/{document_id}")[0] == 404


def test_dropped_and_pasted_files_go_to_images_or_documents(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "Files arrive by drag and drop")
    wait_for_reply(browser)
    browser.execute_script("""
        const files = new DataTransfer();
        files.items.add(new File(['A dropped note.'], 'dropped.txt', {type: 'text/plain'}));
        files.items.add(new File([new Uint8Array([137, 80, 78, 71])], 'dropped.png', {type: 'image/png'}));
        document.getElementById('composer').dispatchEvent(
            new DragEvent('drop', {dataTransfer: files, bubbles: true, cancelable: true}));
        const pasted = new DataTransfer();
        pasted.items.add(new File(['# Pasted'], 'pasted.md', {type: 'text/markdown'}));
        document.getElementById('content').dispatchEvent(
            new ClipboardEvent('paste', {clipboardData: pasted, bubbles: true, cancelable: true}));
    """)
    until(browser, lambda b: settled(b, 2))
    assert sorted(chips(browser)) == ["dropped.txt", "pasted.md"]
    assert [image.get_attribute("alt") for image in browser.find_elements(By.CSS_SELECTOR, ".attachment-tray img")] == [
        "dropped.png"]
    assert not browser.find_element(By.CSS_SELECTOR, ".attachment-note").is_displayed()  # no image refused
    assert not browser.find_element(By.CSS_SELECTOR, ".document-note").is_displayed()  # no document refused

    # A message carries at most 10 documents: the browser refuses the rest at once.
    browser.execute_script("""
        const files = new DataTransfer();
        for (let number = 1; number <= 9; number++) files.items.add(new File(['Note ' + number], 'note' + number + '.txt'));
        document.getElementById('composer').dispatchEvent(
            new DragEvent('drop', {dataTransfer: files, bubbles: true, cancelable: true}));
    """)
    until(browser, lambda b: settled(b, 10))
    assert browser.find_element(By.CSS_SELECTOR, ".document-note").text == "A message can carry at most 10 documents."
    assert "note9.txt" not in chips(browser)


def test_without_javascript_the_plain_form_sends_a_document(browsers, server, write_file):
    browser = browsers.new(javascript=False)
    sign_up(browser, server)
    start_conversation(browser, "No script here")
    # Send is off while a reply is written: reload until it is done.
    until(browser, lambda b: b.refresh() or b.find_element(By.ID, "send").is_enabled(), seconds=20)
    notes = write_file("notes.txt", NOTES)
    file_input = browser.find_element(By.CSS_SELECTOR, '#composer input[type="file"][name="document"]')
    assert file_input.is_displayed()
    assert file_input.find_element(By.XPATH, "..").text == "Documents (up to 10, 32 MB each)"
    file_input.send_keys(notes)
    browser.find_element(By.ID, "content").send_keys("What do my notes say?")
    browser.find_element(By.ID, "send").click()
    until(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "article.message.user")) == 2)
    question = browser.find_elements(By.CSS_SELECTOR, "article.message.user")[-1]
    assert [text for text, _, _ in sent_documents(question)] == [f"notes.txt Text · {len(NOTES.encode())} bytes"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "ul.documents")) == 1  # nothing sent twice or elsewhere
    assert_accessible(browser, "a question with a document, without JavaScript", javascript=False)
