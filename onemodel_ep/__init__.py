"""OneModel EP: exact element-wise kernels for ONNX Runtime."""
