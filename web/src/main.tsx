import { render } from 'preact'
import { App } from './app'
import { refuseStrayFileDrops } from './file-drops'
import './styles.css'

refuseStrayFileDrops()
const root = document.getElementById('app')
if (root) render(<App />, root)
