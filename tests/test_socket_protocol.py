"""The server frames its text messages itself: websockets' own parser reads them back."""

from hypothesis import given
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from server.web.socket_protocol import text_frame_header


def parsed(raw: bytes) -> Frame:
    reader = StreamReader()
    reader.feed_data(raw)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
    except StopIteration as done:
        frame: Frame = done.value
        return frame
    raise AssertionError("the frame was not complete")


# Every length form: 7 bits, 16 bits (from 126), 64 bits (from 65,536).
SIZES = st.one_of(
    st.integers(0, 130), st.integers(65_530, 65_540), st.sampled_from([125, 126, 65_535, 65_536])
)


@given(SIZES)
def test_a_text_frame_of_any_size_is_read_back_whole(size: int) -> None:
    payload = ("ž" * size).encode()[:size]
    frame = parsed(text_frame_header(len(payload)) + payload)
    assert (frame.opcode, frame.fin, frame.data) == (Opcode.TEXT, True, payload)


def test_the_shortest_length_form_is_used() -> None:
    assert len(text_frame_header(125)) == 2
    assert len(text_frame_header(126)) == 4
    assert len(text_frame_header(65_535)) == 4
    assert len(text_frame_header(65_536)) == 10
