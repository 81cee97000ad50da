"""Train the 1-D GAN for a few steps."""
import numpy as np
import tensorflow as tf

from nets import discriminator, generator
from steps import GanTrainer

rng = np.random.default_rng(31)
trainer = GanTrainer(generator(), discriminator())
for it in range(4):
    real = tf.constant(rng.normal(1.0, 0.3, size=(32, 1)).astype("float32"))
    d_loss, g_loss = trainer.step(real)
print("d", float(d_loss), "g", float(g_loss))
