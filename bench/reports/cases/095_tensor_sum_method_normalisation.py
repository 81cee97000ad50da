"""Chess-move policy loss that renormalises the legal-move probabilities with `.sum()`.

Source: a Q&A post by Rulerofzeworld (30 Aug 2021), "Custom Loss Function for Tensor
Normalization", as preserved on https://huggingface.co/datasets/nvidia/Nemotron-CC-Math-v1:
`aiOutPossible / aiOutPossible.sum()` raises "'EagerTensor' object has no attribute 'sum'".
"""
import numpy as np
import tensorflow as tf

aiOutPossible = np.array([[.2, .2, .1], [.35, .2, .1]])
aiOutPossible = tf.convert_to_tensor(aiOutPossible)

if __name__ == "__main__":
    try:
        aiOutPossible = aiOutPossible / aiOutPossible.sum()
        print(aiOutPossible)
        print("ORACLE: bug=False error=none")
    except AttributeError as exc:
        print("AttributeError:", str(exc).strip().splitlines()[0])
        print("ORACLE: bug=True error=AttributeError")
