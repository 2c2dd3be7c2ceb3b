/**
 * Starts a download of `href` saved as `name`, as a click on a download link would: the
 * browser streams it to disk with the session cookie, nothing passes through the page.
 */
export function downloadAs(href: string, name: string): void {
  const link = document.createElement('a')
  link.href = href
  link.download = name
  document.body.append(link)
  link.click()
  link.remove()
}
