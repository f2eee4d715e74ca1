#pragma once
__device__ inline float axpy(float a, float x, float y) { return a * x + y; }
