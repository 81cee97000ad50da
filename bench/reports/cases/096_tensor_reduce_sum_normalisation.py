"""The corrected normalisation from the same post: tf.reduce_sum per row and a reshape.

Source: the Q&A post by Rulerofzeworld (30 Aug 2021) on
https://huggingface.co/datasets/nvidia/Nemotron-CC-Math-v1, "Corrected approach".
"""
import numpy as np
import tensorflow as tf

aiOutPossible = np.array([[.2, .2, .1], [.35, .2, .1]])
aiOutPossible = tf.convert_to_tensor(aiOutPossible)

c = tf.reduce_sum(aiOutPossible, axis=1)
aiOutPossibleNorm = aiOutPossible / tf.reshape(c, (-1, 1))

if __name__ == "__main__":
    print(aiOutPossibleNorm)
    ok = np.allclose(tf.reduce_sum(aiOutPossibleNorm, axis=1).numpy(), 1.0)
    print(f"ORACLE: bug={not ok} rows_sum_to_one={ok}")
