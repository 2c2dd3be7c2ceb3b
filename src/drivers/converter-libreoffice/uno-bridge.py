"""One LibreOffice worker: starts a headless soffice.bin on a private pipe and converts
documents through UNO on request. Node talks to it in JSON lines over stdin/stdout.

Started as: python3 uno-bridge.py <soffice.bin> <profile url> <pipe name> <memory bytes>
<largest file bytes> (a limit of 0 is none).

Out: {"ready": true, "pid": <soffice pid>} once the office answers, then one reply per
request: {"id": n, "ok": true} or {"id": n, "ok": false, "error": "load"|"store"|"crash",
"message": "..."}. In: {"id": n, "input": path, "output": path, "target": ext,
"thumbnailPixels": n?}. The bridge exits when stdin closes or the office dies.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException

# Export filters by document family and target extension.
FILTERS = {
    'text': {
        'pdf': 'writer_pdf_Export', 'docx': 'MS Word 2007 XML', 'odt': 'writer8',
        'txt': 'Text (encoded)', 'rtf': 'Rich Text Format', 'png': 'writer_png_Export',
    },
    'spreadsheet': {
        'pdf': 'calc_pdf_Export', 'xlsx': 'Calc MS Excel 2007 XML', 'ods': 'calc8',
        'csv': 'Text - txt - csv (StarCalc)', 'png': 'calc_png_Export',
    },
    'presentation': {
        'pdf': 'impress_pdf_Export', 'pptx': 'Impress MS PowerPoint 2007 XML', 'odp': 'impress8',
        'png': 'impress_png_Export',
    },
    # PDFs open in Draw: only their first page's image is made.
    'drawing': {'png': 'draw_png_Export'},
}
# Text filters read and write UTF-8; CSV is comma-separated, double-quoted, UTF-8 (76).
FILTER_OPTIONS = {'txt': 'UTF8', 'csv': '44,34,76,1'}
# Import filters for sources whose type detection would pick another application.
IMPORT_FILTERS = {'csv': 'Text - txt - csv (StarCalc)', 'txt': 'Text (encoded)'}
# Sources that may load as plain text; any other that does is not what its extension says
# (random bytes fall back to the text filter).
TEXT_SOURCES = ('txt', 'csv', 'html', 'htm')


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def send(message):
    sys.stdout.write(json.dumps(message) + '\n')
    sys.stdout.flush()


def limits(memory, file_size):
    def apply():
        # The office gets its own process group (the driver kills it as a whole), an
        # address-space limit (a decompression bomb fails its allocation, not the machine)
        # and a file-size limit (a page bomb cannot fill the disk).
        os.setsid()
        if memory > 0:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if file_size > 0:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    return apply


def start_office(binary, profile, pipe, memory, file_size):
    args = [
        binary, '--headless', '--invisible', '--nologo', '--norestore', '--nodefault',
        '--nolockcheck', '--nofirststartwizard', '-env:UserInstallation=' + profile,
        '--accept=pipe,name=%s;urp;StarOffice.ComponentContext' % pipe,
    ]
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=limits(memory, file_size))


def connect(start, pipe):
    """The office process and its Desktop, once it answers on its pipe."""
    office = start()
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        'com.sun.star.bridge.UnoUrlResolver', local)
    url = 'uno:pipe,name=%s;urp;StarOffice.ComponentContext' % pipe
    deadline = time.time() + 60
    restarted = False
    while True:
        if office.poll() is not None:
            # A fresh profile makes the office exit with 81 once, asking to be started again.
            if office.returncode != 81 or restarted:
                raise RuntimeError('the office exited while starting (%s)' % office.returncode)
            restarted = True
            office = start()
        try:
            ctx = resolver.resolve(url)
            desktop = ctx.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', ctx)
            return office, desktop
        except NoConnectException:
            if time.time() > deadline:
                raise RuntimeError('the office did not answer on its pipe within 60 s')
            time.sleep(0.1)


def family_of(document):
    if document.supportsService('com.sun.star.sheet.SpreadsheetDocument'):
        return 'spreadsheet'
    if document.supportsService('com.sun.star.presentation.PresentationDocument'):
        return 'presentation'
    if document.supportsService('com.sun.star.drawing.DrawingDocument'):
        return 'drawing'
    if document.supportsService('com.sun.star.text.TextDocument'):
        return 'text'
    return None


def page_size(document, family):
    """Width and height of the first page in 1/100 mm, for the thumbnail's proportions."""
    try:
        if family in ('presentation', 'drawing'):
            page = document.getDrawPages().getByIndex(0)
            return page.Width, page.Height
        if family == 'text':
            style_name = document.getText().createTextCursor().PageStyleName
            style = document.getStyleFamilies().getByName('PageStyles').getByName(style_name)
            return style.Width, style.Height
    except Exception:
        pass
    return 21000, 29700


def load_properties(extension):
    props = [
        prop('Hidden', True),
        prop('ReadOnly', True),
        # MacroExecutionMode NEVER_EXECUTE and UpdateDocMode NO_UPDATE: no macro runs and no
        # link (images, OLE objects, templates, external data) is updated on load.
        prop('MacroExecutionMode', 0),
        prop('UpdateDocMode', 0),
        prop('RepairPackage', False),
        prop('Silent', True),
    ]
    if extension in IMPORT_FILTERS:
        props.append(prop('FilterName', IMPORT_FILTERS[extension]))
        if extension == 'csv':
            props.append(prop('FilterOptions', '44,34,76,1'))
        else:
            props.append(prop('FilterOptions', 'UTF8'))
    return props


def office_gone(office, error):
    """True when an error came from losing the office rather than from the document."""
    if type(error).__name__ == 'DisposedException':
        return True
    for _ in range(5):
        if office.poll() is not None:
            return True
        time.sleep(0.02)
    return False


def convert(desktop, office, request):
    source = request['input']
    extension = os.path.splitext(source)[1].lstrip('.').lower()
    target = request['target']
    try:
        document = desktop.loadComponentFromURL(
            uno.systemPathToFileUrl(source), '_blank', 0, tuple(load_properties(extension)))
    except Exception as error:
        if office_gone(office, error):
            raise
        return {'ok': False, 'error': 'load', 'message': str(error)[:300]}
    if document is None:
        return {'ok': False, 'error': 'load', 'message': 'not a document LibreOffice can open'}
    try:
        used = dict((p.Name, p.Value) for p in document.getArgs()).get('FilterName', '')
        if extension not in TEXT_SOURCES and str(used).startswith('Text'):
            return {'ok': False, 'error': 'load', 'message': 'not a .%s document' % extension}
        family = family_of(document)
        filters = FILTERS.get(family or '', {})
        if target not in filters:
            return {'ok': False, 'error': 'unsupported',
                    'message': 'a %s document cannot be converted to %s' % (family, target)}
        store = [prop('FilterName', filters[target]), prop('Overwrite', True)]
        if target in FILTER_OPTIONS:
            store.append(prop('FilterOptions', FILTER_OPTIONS[target]))
        if target == 'png':
            pixels = int(request.get('thumbnailPixels', 512))
            width, height = page_size(document, family)
            if width >= height:
                size = (pixels, max(1, pixels * height // width))
            else:
                size = (max(1, pixels * width // height), pixels)
            data = uno.Any('[]com.sun.star.beans.PropertyValue', (
                prop('PixelWidth', size[0]), prop('PixelHeight', size[1])))
            store.append(prop('FilterData', data))
        try:
            document.storeToURL(uno.systemPathToFileUrl(request['output']), tuple(store))
        except Exception as error:
            if office_gone(office, error):
                raise
            return {'ok': False, 'error': 'store', 'message': str(error)[:300]}
        return {'ok': True}
    finally:
        try:
            document.close(True)
        except Exception:
            try:
                document.dispose()
            except Exception:
                pass


def main():
    binary, profile, pipe = sys.argv[1], sys.argv[2], sys.argv[3]
    memory, file_size = int(sys.argv[4]), int(sys.argv[5])
    started = []

    def start():
        started.append(start_office(binary, profile, pipe, memory, file_size))
        return started[-1]

    def stop(*_):
        for office in started:
            try:
                os.killpg(office.pid, signal.SIGKILL)
            except Exception:
                pass
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        office, desktop = connect(start, pipe)
    except Exception as error:
        send({'ready': False, 'message': str(error)})
        stop()
    send({'ready': True, 'pid': office.pid})
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = convert(desktop, office, request)
        except Exception as error:
            # A lost bridge (the office crashed or was killed) ends this worker.
            send({'id': request['id'], 'ok': False, 'error': 'crash', 'message': str(error)[:300]})
            stop()
        reply['id'] = request['id']
        send(reply)
        if office.poll() is not None:
            stop()
    stop()


if __name__ == '__main__':
    main()
