/**
 * Saves text as a file in the browser: a Blob behind an object URL and a temporary <a download> that is clicked
 * and removed. The URL is released on the next tick, after the browser has started the download (revoking it at
 * once cancels the download in some browsers).
 */
export function saveTextFile(text: string, fileName: string, type = "text/csv;charset=utf-8"): void {
  const blob = new Blob([text], { type });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.style.display = "none";
  document.body.appendChild(link);
  try {
    link.click();
  } finally {
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}
