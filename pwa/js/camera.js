// The back camera shown in a <video> and looked at four times a second until stopped: the
// challenge scanner and the offline duel's reader both watch through it.

// Starts the camera; look(video, watching) is called for each frame until the watch is stopped
// (look may stop it), failed(error) when there is no camera or it was refused (error.name says
// which: NotAllowedError, NotFoundError, NotReadableError…). The page is patched,
// not replaced, on re-render, so the <video> to play into is the one in the page at `selector`.
export function watch(video, selector, look, failed = () => {}) {
  const watching = {
    stopped: false,
    stream: null,
    timer: null,
    stop() {
      watching.stopped = true;
      clearTimeout(watching.timer);
      watching.stream?.getTracks().forEach((track) => track.stop());
    },
  };
  start(watching, video, selector, look).catch((error) => {
    if (!watching.stopped) failed(error);
  });
  return watching;
}

async function start(watching, video, selector, look) {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
  if (watching.stopped) {
    stream.getTracks().forEach((track) => track.stop());
    return;
  }
  watching.stream = stream;
  const live = document.querySelector(selector) || video;
  live.srcObject = stream;
  await live.play();
  const frame = async () => {
    if (watching.stopped) return;
    try {
      await look(live, watching);
    } catch { /* a frame that could not be read */ }
    if (!watching.stopped) watching.timer = setTimeout(frame, 250);
  };
  frame();
}
