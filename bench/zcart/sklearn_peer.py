#!/usr/bin/python3
# Peer for bench_zcart: scikit-learn's DecisionTreeRegressor (Debian python3-sklearn) on the data
# bench_zcart wrote. Prints one JSON line: fit seconds, test RMSE, leaves, depth.
# Usage: sklearn_peer.py PREFIX ATTRS MAX_DEPTH MIN_LEAF
import json
import sys
import time

import numpy as np
from sklearn.tree import DecisionTreeRegressor

prefix, attrs, depth, min_leaf = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
x_train = np.fromfile(prefix + ".train.x", dtype=np.float64).reshape(-1, attrs)
y_train = np.fromfile(prefix + ".train.y", dtype=np.float64)
x_test = np.fromfile(prefix + ".test.x", dtype=np.float64).reshape(-1, attrs)
y_test = np.fromfile(prefix + ".test.y", dtype=np.float64)
tree = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=min_leaf, random_state=0)
start = time.perf_counter()
tree.fit(x_train, y_train)
fit_s = time.perf_counter() - start
start = time.perf_counter()
pred = tree.predict(x_test)
predict_s = time.perf_counter() - start
rmse = float(np.sqrt(np.mean((pred - y_test) ** 2)))
print(json.dumps({"fit_s": fit_s, "rmse": rmse, "leaves": int(tree.get_n_leaves()),
                  "depth": int(tree.get_depth()), "predict_us": predict_s / len(y_test) * 1e6}))
