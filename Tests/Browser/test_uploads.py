"""Images in a real browser: choose one, see its thumbnail and the upload's progress bar, send, and see it in the
conversation before and after a reload (the demo model can see images)."""
import os
import struct
import tempfile
import zlib

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from parley_pages import assert_accessible, replies, sign_up, start_conversation, wait_for_reply

SIDE = 1200


def write_png(path, side):
    """A real PNG of random pixels (so it does not compress): about side² × 3 bytes, large enough to show progress."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + os.urandom(side * 3) for _ in range(side))
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
                   + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))


def test_an_image_shows_a_thumbnail_and_upload_progress_and_appears_in_the_conversation(browser, server):
    sign_up(browser, server)
    start_conversation(browser, "First, a question without pictures")
    wait_for_reply(browser)
    picture = os.path.join(tempfile.mkdtemp(prefix="parley-upload-"), "noise.png")
    write_png(picture, SIDE)
    size = os.path.getsize(picture)

    # The script hides the plain file input behind its Attach button; a test cannot drive the native file dialog,
    # so it hands the file to the input the button opens.
    file_input = browser.find_element(By.CSS_SELECTOR, '#composer input[type="file"][name="image"]')
    assert browser.find_element(By.CSS_SELECTOR, "#composer .attach-button").is_displayed()
    browser.execute_script("arguments[0].hidden = false", file_input)
    file_input.send_keys(picture)
    thumbnail = WebDriverWait(browser, 10).until(
        lambda b: b.find_element(By.CSS_SELECTOR, ".attachment-tray img"))
    assert thumbnail.get_attribute("alt") == "noise.png"
    assert browser.find_element(By.CSS_SELECTOR, ".attachment-tray .remove").get_attribute("aria-label") == "Remove noise.png"
    assert_accessible(browser, "the composer with an image attached")

    # Record whether the progress bar is ever shown while the upload runs.
    browser.execute_script("""
        const bar = document.querySelector('.attachment-tray progress');
        window.progressShown = false;
        new MutationObserver(() => { if (!bar.hidden) window.progressShown = true; })
            .observe(bar, {attributes: true, attributeFilter: ['hidden', 'value']});
    """)
    browser.find_element(By.ID, "content").send_keys("What is in this picture?")
    browser.find_element(By.ID, "send").click()

    WebDriverWait(browser, 20).until(lambda b: len(replies(b)) == 2)
    question = browser.find_elements(By.CSS_SELECTOR, "article.message.user")[-1]
    assert question.find_element(By.CSS_SELECTOR, "ul.attachments img")
    assert browser.execute_script("return window.progressShown") is True
    assert not browser.find_elements(By.CSS_SELECTOR, ".attachment-tray img")  # the tray emptied after sending
    reply = wait_for_reply(browser)
    assert f"attached 1 image (image/png, {size} bytes)" in reply.text

    # After a reload the server renders the stored image, served from /attachments/{id}.
    browser.refresh()
    image = WebDriverWait(browser, 10).until(
        lambda b: b.find_element(By.CSS_SELECTOR, "article.message.user ul.attachments img"))
    assert image.get_attribute("src").startswith(server + "/attachments/")
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return arguments[0].naturalWidth", image) == SIDE)
    assert_accessible(browser, "a conversation with an image")
