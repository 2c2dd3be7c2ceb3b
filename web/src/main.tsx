import { render } from 'preact'
import { App } from './app'
import { refuseStrayFileDrops } from './file-drops'
import { startLocale } from './i18n'
import './styles.css'

refuseStrayFileDrops()
const root = document.getElementById('app')
// The language's catalog first, so the first screen is already in it.
if (root) void startLocale().finally(() => render(<App />, root))
