/**
 * Asks for a password on the terminal with echo off. Node has no hidden prompt of its own
 * and the few lines below (raw mode, Enter, Backspace, Ctrl-C) cost less than a dependency.
 * The prompt goes to stderr, so stdout stays the command's own output.
 */
export function promptHidden(question: string, input: NodeJS.ReadStream = process.stdin): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!input.isTTY) {
      reject(new Error('no terminal to ask for the password on: pipe it in with --password-stdin'))
      return
    }
    input.setRawMode(true)
    process.stderr.write(question)
    input.resume()
    input.setEncoding('utf8')
    let typed = ''
    const finish = (error?: Error) => {
      input.off('data', onData)
      input.setRawMode(false)
      input.pause()
      process.stderr.write('\n')
      if (error) reject(error)
      else resolve(typed)
    }
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish()
        if (char === '\u0003' || (char === '\u0004' && typed === '')) return finish(new Error('cancelled'))
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1)
        else if (char >= ' ') typed += char
      }
    }
    input.on('data', onData)
  })
}

/** Asks twice; the two must match. */
export async function promptNewPassword(): Promise<string> {
  const first = await promptHidden('New password: ')
  const again = await promptHidden('Repeat it: ')
  if (first !== again) throw new Error('the two passwords differ; nothing was changed')
  return first
}
