"""tf.image.draw_bounding_boxes: cases adapted from tensorflow/python/kernel_tests/image_ops/draw_bounding_box_op_test.py (DrawBoundingBoxOpTest.testDrawBoundingBoxRGBColorCycling, testDrawBoundingBoxRGBAColorCycling, testDrawBoundingBoxGRY, testDrawBoundingBoxRGBColorCyclingWithColors, testDrawBoundingBoxRGBAColorCyclingWithColors, testDrawBoundingBoxHalf); UPSTREAM_TESTS below maps each to the cases here. Not differentiable (the marker's backward= says why): no backward cases."""
import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.function("tf.image.draw_bounding_boxes", decile=40, top20=False,
                                  backward=("TensorFlow registers no gradient for DrawBoundingBoxesV2 and "
                                            "DrawBoundingBoxes NotDifferentiable: it paints box outlines over the "
                                            "image"))

UPSTREAM_TESTS = {
    "tensorflow/python/kernel_tests/image_ops/draw_bounding_box_op_test.py::DrawBoundingBoxOpTest::testDrawBoundingBoxRGBColorCycling": [
        "test_draw_bounding_boxes_color_cycling"],
    "tensorflow/python/kernel_tests/image_ops/draw_bounding_box_op_test.py::DrawBoundingBoxOpTest::testDrawBoundingBoxRGBAColorCycling": [
        "test_draw_bounding_boxes_color_cycling"],
    "tensorflow/python/kernel_tests/image_ops/draw_bounding_box_op_test.py::DrawBoundingBoxOpTest::testDrawBoundingBoxGRY": [
        "test_draw_bounding_boxes_color_cycling"],
    "tensorflow/python/kernel_tests/image_ops/draw_bounding_box_op_test.py::DrawBoundingBoxOpTest::testDrawBoundingBoxRGBColorCyclingWithColors": [
        "test_draw_bounding_boxes_color_cycling"],
    "tensorflow/python/kernel_tests/image_ops/draw_bounding_box_op_test.py::DrawBoundingBoxOpTest::testDrawBoundingBoxRGBAColorCyclingWithColors": [
        "test_draw_bounding_boxes_color_cycling"],
    "tensorflow/python/kernel_tests/image_ops/draw_bounding_box_op_test.py::DrawBoundingBoxOpTest::testDrawBoundingBoxHalf": [
        "test_draw_bounding_boxes_half"],
}

# The kernel's default color table (draw_bounding_box_op.cc), used when colors is None.
_DEFAULT_COLORS = np.asarray([
    [1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
    [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1],
])
_RGB_COLORS = np.asarray([[1, 1, 0, 1], [0, 0, 1, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0, 1, 1, 1],
                          [1, 0, 1, 1]])
_RGBA_COLORS = np.asarray([[0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1]])


def _draw_ref(image, boxes, table):
    """Draw each box's outline (one pixel wide) in the color table's entry for that box, in order."""
    image = image.copy()
    h, w, depth = image.shape
    table = table.copy()
    if depth == 1:
        table[:, 0] = 1  # a gray image takes the red channel, which the kernel sets to 1
    for i, (ymin, xmin, ymax, xmax) in enumerate(boxes):
        color = table[i % len(table), :depth]
        top, bottom = int(ymin * (h - 1)), int(ymax * (h - 1))
        left, right = int(xmin * (w - 1)), int(xmax * (w - 1))
        image[top, left:right + 1] = color
        image[bottom, left:right + 1] = color
        image[top:bottom + 1, left] = color
        image[top:bottom + 1, right] = color
    return image


@pytest.mark.parametrize("num_boxes", [1, 4, 10, 11])
@pytest.mark.parametrize("size,depth,colors", [
    (10, 3, None), (10, 4, None), (4, 1, None), (10, 3, _RGB_COLORS), (10, 4, _RGBA_COLORS),
], ids=["rgb", "rgba", "gray", "rgb_colors", "rgba_colors"])
def test_draw_bounding_boxes_color_cycling(bench, device, size, depth, colors, num_boxes):
    # _testDrawBoundingBoxColorCycling: num_boxes copies of the whole-image box; the last one drawn
    # decides the border color, which cycles through the table.
    image_np = np.zeros([size, size, depth], np.float32)
    boxes_np = np.tile(np.array([[0.0, 0.0, 1.0, 1.0]], np.float32), (num_boxes, 1))
    table = _DEFAULT_COLORS if colors is None else colors
    with tf.device(device):
        images = tf.constant(image_np[None])
        boxes = tf.constant(boxes_np[None])
        colors_t = None if colors is None else tf.constant(colors, tf.float32)
        result = bench(tf.image.draw_bounding_boxes, images, boxes, colors_t)
    assert result.dtype == tf.float32
    assert tuple(result.shape) == (1, size, size, depth)
    np.testing.assert_array_equal(result.numpy()[0], _draw_ref(image_np, boxes_np, table))


def test_draw_bounding_boxes_half(bench, device):
    # testDrawBoundingBoxHalf: a float16 image with the RGBA color table.
    image_np = np.zeros([10, 10, 4], np.float32)
    boxes_np = np.tile(np.array([[0.0, 0.0, 1.0, 1.0]], np.float32), (3, 1))
    with tf.device(device):
        images = tf.constant(image_np[None], dtype=tf.float16)
        boxes = tf.constant(boxes_np[None])
        colors = tf.constant(_RGBA_COLORS, tf.float32)
        result = bench(tf.image.draw_bounding_boxes, images, boxes, colors)
    assert result.dtype == tf.float16
    np.testing.assert_array_equal(result.numpy()[0].astype(np.float32),
                                  _draw_ref(image_np, boxes_np, _RGBA_COLORS))


def test_draw_bounding_boxes_inner_boxes_batch(bench, device):
    # Boxes inside the image, two per image over a batch of random images: only the outlines change.
    rng = np.random.default_rng(0)
    images_np = rng.uniform(0, 1, (4, 32, 48, 3)).astype(np.float32)
    boxes_np = np.array([[[0.1, 0.2, 0.5, 0.6], [0.4, 0.0, 0.9, 0.3]]] * 4, np.float32)
    with tf.device(device):
        images = tf.constant(images_np)
        boxes = tf.constant(boxes_np)
        colors = tf.constant(_RGB_COLORS, tf.float32)
        result = bench(tf.image.draw_bounding_boxes, images, boxes, colors)
    expected = np.stack([_draw_ref(img, b, _RGB_COLORS) for img, b in zip(images_np, boxes_np)])
    np.testing.assert_array_equal(result.numpy(), expected)
