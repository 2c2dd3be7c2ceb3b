/**
 * Collects extracted text up to a number of characters. Readers stop as soon as `full` is
 * true; what came past the limit is dropped and marks the result truncated.
 */
export class TextSink {
  private readonly parts: string[] = []
  private length = 0
  truncated = false

  constructor(readonly maxChars: number) {}

  get full(): boolean {
    return this.length >= this.maxChars
  }

  add(text: string): void {
    if (text === '') return
    const room = this.maxChars - this.length
    if (room <= 0) {
      this.truncated = true
      return
    }
    const kept = text.length > room ? text.slice(0, room) : text
    if (kept.length < text.length) this.truncated = true
    this.parts.push(kept)
    this.length += kept.length
  }

  /** The text with runs of blanks made one space and blank lines dropped. */
  text(): string {
    return this.parts
      .join('')
      .replace(/[^\S\n]+/g, ' ')
      .replace(/ ?\n[\s]*/g, '\n')
      .trim()
  }
}
