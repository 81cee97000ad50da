"""The tf.function rules (FUNC001-FUNC016): what goes wrong when TensorFlow traces Python."""
