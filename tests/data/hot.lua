-- A small hot loop: LuaJIT compiles traces for it into machine code.
local function f(n)
  local s = 0
  for i = 1, n do
    if i % 3 == 0 then s = s + i else s = s - 1 end
  end
  return s
end
local t = 0
for k = 1, 300 do t = t + f(2000 + k) end
print("sum", t)
